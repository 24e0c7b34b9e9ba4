import { Snapshot, Variable } from '@ambient/core';
import { delay, expectAmbientError, itFromEveryState } from './helpers/starting-states.js';

describe('Variable', () => {
  itFromEveryState('get() returns the default value, or undefined, where nothing was set', () => {
    expect(new Variable<string>().get()).toBeUndefined();
    expect(new Variable({ defaultValue: 'fallback' }).get()).toBe('fallback');
  });

  it('has the name it was given, and "" by default (as TC39 AsyncContext.Variable)', () => {
    expect(new Variable({ name: 'user' }).name).toBe('user');
    expect(new Variable().name).toBe('');
  });

  itFromEveryState('run(value, fn, ...args) shows value inside fn, passes args and returns the result', () => {
    const variable = new Variable<number>();
    const result = variable.run(42, (a: string, b: number) => `${a}:${b}:${variable.get()}`, 'x', 7);
    expect(result).toBe('x:7:42');
    expect(variable.get()).toBeUndefined();
  });

  itFromEveryState('run calls fn with this undefined, as TC39 AsyncContext.Variable does, with or without args', () => {
    const variable = new Variable<number>();
    function receiver(this: unknown, ..._args: unknown[]) {
      return this;
    }
    expect(variable.run(1, receiver)).toBeUndefined();
    expect(variable.run(1, receiver, 'x')).toBeUndefined();
  });

  itFromEveryState('nested runs restore the outer value when they return', () => {
    const variable = new Variable<string>({ defaultValue: 'default' });
    variable.run('outer', () => {
      variable.run('inner', () => expect(variable.get()).toBe('inner'));
      expect(variable.get()).toBe('outer');
    });
    expect(variable.get()).toBe('default');
  });

  itFromEveryState('run restores the previous value when fn throws', () => {
    const variable = new Variable<string>();
    const failure = new Error('boom');
    variable.run('outer', () => {
      expect(() =>
        variable.run('inner', () => {
          throw failure;
        }),
      ).toThrow(failure);
      expect(variable.get()).toBe('outer');
    });
    expect(variable.get()).toBeUndefined();
  });

  itFromEveryState('run returns the promise of an async fn, whose continuations keep the value', async () => {
    const variable = new Variable<string>();
    const seen = await variable.run('async', async () => {
      await delay(1);
      return variable.get();
    });
    expect(seen).toBe('async');
    expect(variable.get()).toBeUndefined();
  });

  itFromEveryState('run(undefined) hides both an outer value and the default value', () => {
    const variable = new Variable<string | undefined>({ defaultValue: 'default' });
    variable.run('outer', () => {
      variable.run(undefined, () => expect(variable.get()).toBeUndefined());
      expect(variable.get()).toBe('outer');
    });
  });

  itFromEveryState('falsy values are values: 0, "", false and null are returned, not the default', () => {
    const variable = new Variable<unknown>({ defaultValue: 'default' });
    for (const value of [0, '', false, null, Number.NaN]) {
      variable.run(value, () => expect(variable.get()).toBe(value));
    }
  });

  itFromEveryState('variables are independent of each other', () => {
    const first = new Variable<string>();
    const second = new Variable<string>();
    first.run('a', () => {
      second.run('b', () => {
        expect([first.get(), second.get()]).toEqual(['a', 'b']);
        first.run('c', () => expect([first.get(), second.get()]).toEqual(['c', 'b']));
      });
      expect(second.get()).toBeUndefined();
    });
  });

  itFromEveryState('wrap(value, fn) binds fn to the values current now with value, passing this and arguments', () => {
    const variable = new Variable<string>();
    const other = new Variable<string>();
    const wrapped = other.run('kept', () =>
      variable.wrap('wrapped', function (this: { prefix: string }, suffix: string) {
        return `${this.prefix}${variable.get()}:${other.get()}${suffix}`;
      }),
    );
    expect(variable.get()).toBeUndefined(); // nothing was entered by wrap() itself
    variable.run('caller', () =>
      other.run('caller', () => {
        expect(wrapped.call({ prefix: '<' }, '>')).toBe('<wrapped:kept>');
        expect([variable.get(), other.get()]).toEqual(['caller', 'caller']);
      }),
    );
  });

  itFromEveryState(
    'wrap(value, fn) sees what run(value, () => Snapshot.wrap(fn)) would, later and from another flow',
    async () => {
      const variable = new Variable<string | undefined>({ defaultValue: 'default' });
      const read = () => variable.get();
      const [wrapped, reference] = variable.run('outer', () => [
        variable.wrap(undefined, read),
        variable.run(undefined, () => Snapshot.wrap(read)),
      ]);
      const seen = await variable.run('elsewhere', async () => {
        await delay(1);
        return [wrapped(), reference()];
      });
      expect(seen).toEqual([undefined, undefined]); // undefined hides the outer value and the default, as run(undefined) does
    },
  );

  itFromEveryState('a wrapped function restores the caller after a throw, and a set() inside ends with it', () => {
    const variable = new Variable<string>();
    const throwing = variable.wrap('wrapped', () => {
      variable.set('changed inside');
      throw new Error('boom');
    });
    variable.run('caller', () => {
      expect(throwing).toThrow('boom');
      expect(variable.get()).toBe('caller');
    });
  });

  it('rejects a non-function callback with a TypeError coded ERR_AMBIENT_INVALID_ARGUMENT', () => {
    const variable = new Variable<string>();
    expectAmbientError(() => variable.run('x', 'not a function' as never), 'ERR_AMBIENT_INVALID_ARGUMENT');
    expectAmbientError(() => variable.wrap('x', 42 as never), 'ERR_AMBIENT_INVALID_ARGUMENT');
  });

  it('each method, called on anything but a Variable, throws a TypeError coded ERR_AMBIENT_INVALID_RECEIVER', () => {
    const { get, run, wrap, set } = Variable.prototype;
    for (const receiver of [{}, undefined, new Snapshot()]) {
      expectAmbientError(() => get.call(receiver), 'ERR_AMBIENT_INVALID_RECEIVER');
      expectAmbientError(() => run.call(receiver, 1, () => 1), 'ERR_AMBIENT_INVALID_RECEIVER');
      expectAmbientError(() => wrap.call(receiver, 1, () => 1), 'ERR_AMBIENT_INVALID_RECEIVER');
      expectAmbientError(() => set.call(receiver, 1), 'ERR_AMBIENT_INVALID_RECEIVER');
    }
  });
});
