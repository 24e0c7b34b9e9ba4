import { defineErrors, defineWarnings, describeValue, usageErrorTemplates, type CodesOf } from './define-errors.js';

/** Every error @ambient/core throws. Codes are stable API: match on `error.code`, never on the message. */
export const errors = defineErrors({
  noScope: {
    code: 'ERR_AMBIENT_NO_SCOPE',
    message: (owner: string, operation: string, howToOpen: string) =>
      `${owner}.${operation}() was called outside any ${owner} scope. ${howToOpen}`,
  },
  missingValue: {
    code: 'ERR_AMBIENT_MISSING_VALUE',
    message: (owner: string, key: string) =>
      `${owner}.require(${JSON.stringify(key)}) found no value in the current scope: set it first, ` +
      `or use ${owner}.get() where its absence is expected.`,
  },
  ...usageErrorTemplates({ argument: 'ERR_AMBIENT_INVALID_ARGUMENT', option: 'ERR_AMBIENT_INVALID_OPTION' }),
  invalidReceiver: {
    code: 'ERR_AMBIENT_INVALID_RECEIVER',
    type: 'TypeError',
    message: (method: string, received: unknown) =>
      `${method} was called on ${describeValue(received)}; call it on the instance it belongs to.`,
  },
  setUnsupported: {
    code: 'ERR_AMBIENT_SET_UNSUPPORTED',
    message: (owner: string) =>
      `${owner}.set() cannot change a value in place on globalThis.AsyncContext: use run(value, fn), or a Context.`,
  },
});

/** Every warning @ambient/core emits (`process.on('warning')`, type `AmbientWarning`). */
export const warnings = defineWarnings({
  incompatibleCopy: {
    code: 'WARN_AMBIENT_INCOMPATIBLE_COPY',
    once: true,
    message: (mine: string, theirs: string, path: string) =>
      `@ambient/core ${mine} cannot share context with ${theirs} (${path}), loaded first: install one version ` +
      '(see https://github.com/ambient-js/ambient/tree/main/packages/core#one-copy-per-process).',
  },
});

/** The error for a callback that is not a function. */
export function notAFunction(where: string, value: unknown) {
  return errors.invalidArgument(where, 'a function', value);
}

/** Every code @ambient/core throws. */
export type CoreErrorCode = CodesOf<typeof errors>;
