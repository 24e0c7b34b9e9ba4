import { createContext, Snapshot, Variable } from '@ambient/core';
import { delay, expectAmbientError, itFromEveryState } from './helpers/starting-states.js';

describe('Snapshot', () => {
  itFromEveryState('captures every Variable and Context at construction and restores the caller afterwards', () => {
    const first = new Variable<string>();
    const second = new Variable<number>();
    const context = createContext<{ id: string }>();
    const snapshot = first.run('a', () => second.run(1, () => context.run({ id: 'ctx' }, () => new Snapshot())));
    first.run('other', () => {
      const seen = snapshot.run(() => [first.get(), second.get(), context.get('id')]);
      expect(seen).toEqual(['a', 1, 'ctx']);
      expect([first.get(), second.get(), context.get('id')]).toEqual(['other', undefined, undefined]);
    });
  });

  itFromEveryState('run passes arguments and returns the result', () => {
    const snapshot = new Snapshot();
    expect(snapshot.run((a: number, b: number) => a + b, 2, 3)).toBe(5);
  });

  itFromEveryState('run restores the caller when fn throws', () => {
    const variable = new Variable<string>();
    const snapshot = variable.run('captured', () => new Snapshot());
    variable.run('caller', () => {
      expect(() =>
        snapshot.run(() => {
          throw new Error('boom');
        }),
      ).toThrow('boom');
      expect(variable.get()).toBe('caller');
    });
  });

  itFromEveryState(
    'a snapshot taken where a variable has no value shows its default, even when run inside a value',
    () => {
      const variable = new Variable<string | undefined>({ defaultValue: 'default' });
      const bare = new Snapshot();
      const hidden = variable.run(undefined, () => new Snapshot());
      variable.run('caller', () => {
        expect(bare.run(() => variable.get())).toBe('default');
        expect(hidden.run(() => variable.get())).toBeUndefined();
        expect(variable.get()).toBe('caller');
      });
    },
  );

  itFromEveryState('async continuations inside Snapshot#run keep the captured values', async () => {
    const variable = new Variable<string>();
    const snapshot = variable.run('captured', () => new Snapshot());
    const seen = await variable.run('caller', () =>
      snapshot.run(async () => {
        await delay(1);
        return variable.get();
      }),
    );
    expect(seen).toBe('captured');
  });

  itFromEveryState('wrap binds a function to the values current at wrap time, passing this and arguments', () => {
    const variable = new Variable<string>();
    const wrapped = variable.run('wrapped', () =>
      Snapshot.wrap(function (this: { prefix: string }, suffix: string) {
        return `${this.prefix}${variable.get()}${suffix}`;
      }),
    );
    variable.run('caller', () => {
      expect(wrapped.call({ prefix: '<' }, '>')).toBe('<wrapped>');
      expect(variable.get()).toBe('caller');
    });
  });

  itFromEveryState('wrap works when the wrapped function is called from another flow later', async () => {
    const variable = new Variable<string>();
    const wrapped = variable.run('origin', () => Snapshot.wrap(() => variable.get()));
    const seen = await variable.run('elsewhere', async () => {
      await delay(1);
      return wrapped();
    });
    expect(seen).toBe('origin');
  });

  it('rejects a non-function with ERR_AMBIENT_INVALID_ARGUMENT', () => {
    expectAmbientError(() => new Snapshot().run(42 as never), 'ERR_AMBIENT_INVALID_ARGUMENT');
    expectAmbientError(() => Snapshot.wrap({} as never), 'ERR_AMBIENT_INVALID_ARGUMENT');
  });
});
