import { defineErrors, type CodesOf } from './define-errors.js';
import { describeValue } from './describe-value.js';
import { argumentErrorTemplates, optionErrorTemplates } from './error-templates.js';

/**
 * Every error @ambient/core throws, in one table. Codes are stable API: match on `error.code`, never on the
 * message. Messages say what to do next.
 */
export const errors = defineErrors({
  noScope: {
    code: 'ERR_AMBIENT_NO_SCOPE',
    message: (owner: string, operation: string, howToOpen: string) =>
      `${owner}.${operation}() was called outside any ${owner} scope. ${howToOpen}`,
  },
  missingValue: {
    code: 'ERR_AMBIENT_MISSING_VALUE',
    message: (owner: string, key: string) =>
      `${owner}.require(${JSON.stringify(key)}) found no value in the current scope. ` +
      `Set it with ${owner}.set(${JSON.stringify(key)}, value) or pass it to ${owner}.run() before reading it, ` +
      `or use ${owner}.get() where its absence is expected.`,
  },
  ...argumentErrorTemplates('ERR_AMBIENT_INVALID_ARGUMENT'),
  ...optionErrorTemplates('ERR_AMBIENT_INVALID_OPTION'),
  invalidReceiver: {
    code: 'ERR_AMBIENT_INVALID_RECEIVER',
    type: 'TypeError',
    message: (method: string, received: unknown) =>
      `${method} was called on ${describeValue(received)}; call it on the instance it belongs to ` +
      '(a detached method loses its receiver: bind it, or call it through the instance).',
  },
  setUnsupported: {
    code: 'ERR_AMBIENT_SET_UNSUPPORTED',
    message: (owner: string) =>
      `${owner}.set() needs Node's AsyncLocalStorage, but this process runs on globalThis.AsyncContext, ` +
      'which has no way to change a value in place. Use run(value, fn) instead, or a Context (createContext) ' +
      'for values that change during a scope.',
  },
});

/** Every code @ambient/core throws. */
export type CoreErrorCode = CodesOf<typeof errors>;
