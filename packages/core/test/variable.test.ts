import { Variable } from '@ambient/core';
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
      expect(() => variable.run('inner', () => {
        throw failure;
      })).toThrow(failure);
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

  it('rejects a non-function callback and bad options with ERR_AMBIENT_INVALID_ARGUMENT', () => {
    const variable = new Variable<string>();
    expectAmbientError(() => variable.run('x', 'not a function' as never), 'ERR_AMBIENT_INVALID_ARGUMENT');
    expectAmbientError(() => new Variable('name' as never), 'ERR_AMBIENT_INVALID_ARGUMENT');
    expectAmbientError(() => new Variable({ name: 5 as never }), 'ERR_AMBIENT_INVALID_ARGUMENT');
    expectAmbientError(() => new Variable(null as never), 'ERR_AMBIENT_INVALID_ARGUMENT');
  });
});
