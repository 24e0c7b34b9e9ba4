import type { AmbientError } from '@ambient/core';
import { defineErrors, defineWarnings, optionErrorTemplates, describeValue, type CodesOf } from '@ambient/core/adapter';

declare module '@ambient/core' {
  interface AmbientErrorCodes {
    ERR_AMBIENT_HTTP_INVALID_OPTION: true;
    ERR_AMBIENT_HTTP_INVALID_ARGUMENT: true;
  }
}

/** Every error @ambient/http-context throws. Match on `error.code`, never on the message. */
export const errors = defineErrors({
  ...optionErrorTemplates('ERR_AMBIENT_HTTP_INVALID_OPTION'),
  invalidArgument: {
    code: 'ERR_AMBIENT_HTTP_INVALID_ARGUMENT',
    message: (where: string, expected: string, received: unknown) =>
      `${where}: expected ${expected}, received ${describeValue(received)}.`,
  },
});

/** Every warning @ambient/http-context emits (`process.on('warning')`, type `AmbientWarning`). */
export const warnings = defineWarnings({
  badGeneratedId: {
    code: 'WARN_AMBIENT_HTTP_BAD_GENERATED_ID',
    once: true,
    message: (received: string) => `generateRequestId returned ${received}; using a UUIDv7 instead.`,
  },
});

export type HttpContextErrorCode = CodesOf<typeof errors>;
export type HttpContextError = AmbientError<HttpContextErrorCode>;
export type HttpContextWarningCode = (typeof warnings.codes)[keyof typeof warnings.codes];
