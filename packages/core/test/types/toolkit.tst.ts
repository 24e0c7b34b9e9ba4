import { expect, test } from 'tstyche';
import { AmbientError, bindCallback } from '@ambient/core';
import {
  bindFirstCall,
  defineErrors,
  defineWarnings,
  usageErrorTemplates,
  readOptions,
  rules,
  type CodesOf,
  type OptionShape,
  type WarningCodesOf,
} from '@ambient/core/internal';

declare module '@ambient/core' {
  interface AmbientErrorCodes {
    ERR_AMBIENT_QUEUE_CLOSED: true;
    ERR_AMBIENT_QUEUE_INVALID_OPTION: true;
  }
}

const errors = defineErrors({
  closed: { code: 'ERR_AMBIENT_QUEUE_CLOSED', message: (name: string, retries: number) => `${name} ${retries}` },
  ...usageErrorTemplates({ option: 'ERR_AMBIENT_QUEUE_INVALID_OPTION' }),
});

test('each factory takes its template arguments, optionally a cause, and returns its own code', () => {
  expect(errors.closed('q', 3)).type.toBe<AmbientError<'ERR_AMBIENT_QUEUE_CLOSED'>>();
  expect(errors.closed).type.toBeCallableWith('q', 3, { cause: new Error('root') });
  expect(errors.closed).type.not.toBeCallableWith('q');
  expect(errors.closed).type.not.toBeCallableWith(3, 'q');
  expect<CodesOf<typeof errors>>().type.toBe<'ERR_AMBIENT_QUEUE_CLOSED' | 'ERR_AMBIENT_QUEUE_INVALID_OPTION'>();
});

test('a code must be registered in AmbientErrorCodes', () => {
  expect(defineErrors).type.not.toBeCallableWith({ oops: { code: 'ERR_NOT_REGISTERED', message: () => 'x' } });
  const caught: unknown = errors.closed('q', 1);
  if (caught instanceof AmbientError) expect<'ERR_AMBIENT_QUEUE_CLOSED'>().type.toBeAssignableTo<typeof caught.code>();
});

test('warnings emit with their arguments and name their codes', () => {
  const warnings = defineWarnings({ slow: { code: 'WARN_AMBIENT_QUEUE_SLOW', message: (ms: number) => `${ms}` } });
  expect(warnings.slow).type.toBeCallableWith(5);
  expect(warnings.slow).type.not.toBeCallableWith('5');
  expect<WarningCodesOf<typeof warnings>>().type.toBe<'WARN_AMBIENT_QUEUE_SLOW'>();
});

test('an options shape needs a rule of the right type for every key', () => {
  interface QueueOptions {
    name?: string;
    paused?: boolean;
  }
  expect(
    readOptions<QueueOptions>(undefined, { name: rules.string, paused: rules.boolean }, { where: 'q' }),
  ).type.toBe<QueueOptions>();
  expect<OptionShape<QueueOptions>>().type.not.toBeAssignableFrom<{ name: typeof rules.string }>();
  expect<OptionShape<QueueOptions>>().type.not.toBeAssignableFrom<{
    name: typeof rules.boolean;
    paused: typeof rules.boolean;
  }>();
});

test('bindCallback and bindFirstCall return a function of the callback’s own type, and take only functions', () => {
  const callback = (error: Error | null, rows?: string[]) => (error === null ? (rows?.length ?? 0) : -1);
  expect(bindCallback(callback)).type.toBe<typeof callback>();
  expect(bindFirstCall(callback)).type.toBe<typeof callback>();
  for (const bind of [bindCallback, bindFirstCall]) {
    expect(bind).type.not.toBeCallableWith('callback');
    expect(bind).type.not.toBeCallableWith({ call: () => 0 });
  }
});
