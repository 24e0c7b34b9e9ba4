import { AmbientError, createContext, Variable } from '@ambient/core';

describe('AmbientError', () => {
  it('is an Error with a stable code, its own name, and a cause passed through', () => {
    const cause = new Error('root cause');
    const error = new AmbientError('ERR_AMBIENT_NO_SCOPE', 'message', { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(AmbientError);
    expect(error.code).toBe('ERR_AMBIENT_NO_SCOPE');
    expect(error.name).toBe('AmbientError');
    expect(error.cause).toBe(cause);
    expect(error.stack).toContain('AmbientError');
  });

  it('is not claimed by a plain Error carrying the same code', () => {
    expect(Object.assign(new Error('x'), { code: 'ERR_AMBIENT_NO_SCOPE' })).not.toBeInstanceOf(AmbientError);
    expect(null).not.toBeInstanceOf(AmbientError);
  });

  it('every error thrown for misuse carries a code and a message that names the fix', () => {
    const thrown: unknown[] = [];
    const attempt = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        thrown.push(error);
      }
    };
    const context = createContext<{ id: string }>({ name: 'jobContext' });
    attempt(() => context.set('id', 'x'));
    attempt(() => context.run({}, () => context.require('id')));
    attempt(() => new Variable().set('x'));
    attempt(() => new Variable().run('x', 1 as never));
    expect(thrown.map((error) => (error as AmbientError).code)).toEqual([
      'ERR_AMBIENT_NO_SCOPE',
      'ERR_AMBIENT_MISSING_VALUE',
      'ERR_AMBIENT_NO_SCOPE',
      'ERR_AMBIENT_INVALID_ARGUMENT',
    ]);
    for (const error of thrown) expect((error as Error).message.length).toBeGreaterThan(30);
  });
});
