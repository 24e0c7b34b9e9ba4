import { AmbientError, Variable } from '@ambient/core';
import { defineErrors, defineWarnings, readOptions, rule, rules, usageErrorTemplates } from '@ambient/core/internal';

/** Codes a test package registers, as every Ambient package does beside its table. */
declare module '@ambient/core' {
  interface AmbientErrorCodes {
    ERR_AMBIENT_TEST_BROKEN: true;
    ERR_AMBIENT_TEST_INVALID_OPTION: true;
  }
}

const errors = defineErrors({
  broken: { code: 'ERR_AMBIENT_TEST_BROKEN', message: (what: string) => `${what} is broken. Mend it.` },
  ...usageErrorTemplates({ option: 'ERR_AMBIENT_TEST_INVALID_OPTION' }),
});

function thrownBy(fn: () => unknown): AmbientError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AmbientError) return error;
    throw error;
  }
  throw new Error('nothing was thrown');
}

describe('defineErrors', () => {
  it('makes one factory per row, each an AmbientError with the row code and message', () => {
    const error = errors.broken('the pump');
    expect(error).toBeInstanceOf(AmbientError);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('ERR_AMBIENT_TEST_BROKEN');
    expect(error.message).toBe('the pump is broken. Mend it.');
    expect(error.cause).toBeUndefined();
  });

  it("makes a TypeError row a real TypeError, with the row's code, that is an AmbientError too", () => {
    const error = errors.invalidArgument('pump(fn)', 'a function', 42);
    expect(error.constructor).toBe(TypeError);
    expect(error).toBeInstanceOf(AmbientError);
    expect(error.code).toBe('ERR_AMBIENT_TEST_INVALID_OPTION');
    expect(error.message).toBe('pump(fn): expected a function, received number 42.');
  });

  it('passes a cause given as the last argument through', () => {
    const cause = new TypeError('root');
    const error = errors.broken('the pump', { cause });
    expect(error.cause).toBe(cause);
    expect(error.message).toBe('the pump is broken. Mend it.');
  });
});

describe('defineWarnings', () => {
  let emitWarning: jest.SpyInstance;
  beforeEach(() => {
    emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
  });
  afterEach(() => emitWarning.mockRestore());

  it('emits each warning with its code and the AmbientWarning type; a once warning only the first time', () => {
    const warnings = defineWarnings({
      slow: { code: 'WARN_AMBIENT_TEST_SLOW', message: (ms: number) => `took ${ms} ms` },
      odd: { code: 'WARN_AMBIENT_TEST_ODD', once: true, message: () => 'odd' },
    });
    warnings.slow(5);
    warnings.slow(6);
    warnings.odd();
    warnings.odd();
    expect(emitWarning.mock.calls).toEqual([
      ['took 5 ms', { type: 'AmbientWarning', code: 'WARN_AMBIENT_TEST_SLOW' }],
      ['took 6 ms', { type: 'AmbientWarning', code: 'WARN_AMBIENT_TEST_SLOW' }],
      ['odd', { type: 'AmbientWarning', code: 'WARN_AMBIENT_TEST_ODD' }],
    ]);
    expect(warnings.codes).toEqual({ slow: 'WARN_AMBIENT_TEST_SLOW', odd: 'WARN_AMBIENT_TEST_ODD' });
  });
});

describe('readOptions', () => {
  interface PumpOptions {
    name?: string;
    defaultValue?: number;
    onError?: (error: unknown) => void;
    nested?: { depth?: number };
  }
  const shape = {
    name: rules.string,
    defaultValue: rule('a number', (value): value is number => typeof value === 'number'),
    onError: rules.function<(error: unknown) => void>('(error) => void'),
    nested: rules.object,
  };
  const read = (options: unknown) => readOptions<PumpOptions>(options, shape, { where: 'pump(options)', errors });

  it('returns the options as given: undefined is none, absent keys stay absent', () => {
    expect(read(undefined)).toEqual({});
    const onError = () => undefined;
    expect(read({ name: 'p', onError })).toEqual({ name: 'p', onError });
    expect(read({ name: undefined })).toEqual({ name: undefined });
  });

  it.each([null, 42, 'name', [], () => undefined])('rejects %p as options, with the package code', (options) => {
    expect(thrownBy(() => read(options)).code).toBe('ERR_AMBIENT_TEST_INVALID_OPTION');
  });

  it.each([
    ['name', 42],
    ['defaultValue', '1'],
    ['onError', 'log'],
    ['nested', null],
  ])('rejects option %s = %p, naming the type it expected', (key, value) => {
    const error = thrownBy(() => read({ [key]: value }));
    expect(error.code).toBe('ERR_AMBIENT_TEST_INVALID_OPTION');
    expect(error.message).toContain(`"${key}" must be ${shape[key as keyof typeof shape].expected}`);
  });

  it.each([
    ['defualtValue', 'defaultValue'],
    ['defaultvalue', 'defaultValue'],
    ['nmae', 'name'],
    ['onerror', 'onError'],
    ['onErorr', 'onError'],
  ])('rejects the unknown key %s and suggests %s', (typo, meant) => {
    const error = thrownBy(() => read({ [typo]: 1 }));
    expect(error.code).toBe('ERR_AMBIENT_TEST_INVALID_OPTION');
    expect(error.message).toContain(`Did you mean "${meant}"?`);
  });

  it('suggests nothing for a key far from every known one, and lists the known ones', () => {
    const error = thrownBy(() => read({ requestIdHeader: 'x' }));
    expect(error.message).not.toContain('Did you mean');
    expect(error.message).toContain('Known options: name, defaultValue, onError, nested.');
  });

  it('names nested options by their path', () => {
    const nested = (options: unknown) =>
      readOptions<{ depth?: number }>(
        options,
        { depth: rule('a number', (value): value is number => typeof value === 'number') },
        { where: 'pump(options)', errors, path: 'nested' },
      );
    expect(thrownBy(() => nested({ dept: 1 })).message).toContain('unknown option "nested.dept"');
    expect(thrownBy(() => nested({ depth: 'deep' })).message).toContain('"nested.depth" must be a number');
  });

  it('throws core codes when no table is given', () => {
    const error = thrownBy(() => readOptions<{ name?: string }>({ nmae: 'x' }, { name: rules.string }, { where: 'x' }));
    expect(error.code).toBe('ERR_AMBIENT_INVALID_OPTION');
  });
});

describe('Variable reads its options as TC39 AsyncContext does', () => {
  it('does not reject unknown keys', () => {
    expect(new Variable({ name: 'v', extra: true } as never).name).toBe('v');
  });
});
