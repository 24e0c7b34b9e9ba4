import { createContext, Snapshot, Variable } from '@ambient/core';
import { delay, expectAmbientError, itFromEveryState } from './helpers/starting-states.js';

/**
 * Variable#set: from the call on, the rest of the synchronous execution and every continuation created after
 * it see the new value; continuations created before keep theirs; it never escapes the innermost enclosing
 * run of any kind, and never reaches another flow.
 */
describe('Variable#set', () => {
  itFromEveryState('the rest of the synchronous execution sees the new value', () => {
    const variable = new Variable<string>();
    variable.run('initial', () => {
      variable.set('changed');
      expect(variable.get()).toBe('changed');
    });
  });

  itFromEveryState('continuations created after set see it; those created before keep their value', async () => {
    const variable = new Variable<string>();
    await variable.run('before', async () => {
      const earlyTimer = new Promise((resolve) => setTimeout(() => resolve(variable.get()), 2));
      const earlyThen = Promise.resolve().then(() => variable.get());
      variable.set('after');
      const lateTimer = new Promise((resolve) => setTimeout(() => resolve(variable.get()), 1));
      const lateThen = Promise.resolve().then(() => variable.get());
      expect(await Promise.all([earlyTimer, earlyThen, lateTimer, lateThen])).toEqual([
        'before',
        'before',
        'after',
        'after',
      ]);
      expect(variable.get()).toBe('after');
    });
  });

  itFromEveryState('never escapes the enclosing Variable#run', () => {
    const variable = new Variable<string>({ defaultValue: 'default' });
    variable.run('outer', () => {
      variable.run('inner', () => variable.set('changed inside'));
      expect(variable.get()).toBe('outer');
    });
    expect(variable.get()).toBe('default');
  });

  itFromEveryState('never escapes a run of another Variable', () => {
    const variable = new Variable<string>();
    const other = new Variable<number>();
    variable.run('outer', () => {
      other.run(1, () => variable.set('changed inside'));
      expect(variable.get()).toBe('outer');
    });
  });

  itFromEveryState('never escapes a Snapshot#run, even of a snapshot equal to the current state', () => {
    const variable = new Variable<string>();
    variable.run('outer', () => {
      // Node's AsyncLocalStorage#run skips its restore when the store equals the current one; ours must not.
      const same = new Snapshot();
      same.run(() => variable.set('changed in same snapshot'));
      expect(variable.get()).toBe('outer');
      const wrapped = Snapshot.wrap(() => variable.set('changed in wrap'));
      wrapped();
      expect(variable.get()).toBe('outer');
    });
  });

  itFromEveryState('never escapes a Context#run', () => {
    const variable = new Variable<string>();
    const context = createContext<{ id: string }>();
    variable.run('outer', () => {
      context.run({ id: 'x' }, () => variable.set('changed in context'));
      expect(variable.get()).toBe('outer');
    });
  });

  itFromEveryState('a set after an await inside an async run stays in that async function', async () => {
    const variable = new Variable<string>({ defaultValue: 'default' });
    const child = variable.run('outer', async () => {
      await null;
      variable.set('changed after await');
      await delay(1);
      return variable.get();
    });
    expect(variable.get()).toBe('default');
    expect(await child).toBe('changed after await');
    expect(variable.get()).toBe('default');
    await delay(1);
    expect(variable.get()).toBe('default');
  });

  itFromEveryState('a child task that sets after an await does not change its parent', async () => {
    const variable = new Variable<string>();
    await variable.run('parent', async () => {
      const child = (async () => {
        await null;
        variable.set('child');
        return variable.get();
      })();
      expect(await child).toBe('child');
      expect(variable.get()).toBe('parent');
    });
  });

  itFromEveryState('restores correctly when fn throws after a set', () => {
    const variable = new Variable<string>();
    variable.run('outer', () => {
      expect(() =>
        variable.run('inner', () => {
          variable.set('changed');
          throw new Error('boom');
        }),
      ).toThrow('boom');
      expect(variable.get()).toBe('outer');
    });
  });

  itFromEveryState('set(undefined) hides the default value', () => {
    const variable = new Variable<string | undefined>({ defaultValue: 'default' });
    variable.run('value', () => {
      variable.set(undefined);
      expect(variable.get()).toBeUndefined();
    });
  });

  it('throws ERR_AMBIENT_NO_SCOPE outside any run, and changes nothing', () => {
    const variable = new Variable<string>({ name: 'user', defaultValue: 'default' });
    expectAmbientError(() => variable.set('leak'), 'ERR_AMBIENT_NO_SCOPE');
    expect(variable.get()).toBe('default');
  });

  it('never reaches a concurrent flow', async () => {
    const variable = new Variable<string>();
    const flow = (id: string) =>
      variable.run(`${id}:initial`, async () => {
        await delay(Math.random() * 5);
        variable.set(id);
        await delay(Math.random() * 5);
        return variable.get();
      });
    expect(await Promise.all(['a', 'b', 'c', 'd'].map(flow))).toEqual(['a', 'b', 'c', 'd']);
  });
});
