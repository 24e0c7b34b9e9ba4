import type { AmbientError } from '@ambient/core';
import { defineErrors, usageErrorTemplates, type CodesOf } from '@ambient/core/internal';

declare module '@ambient/core' {
  interface AmbientErrorCodes {
    ERR_AMBIENT_CORRELATION_INVALID_ARGUMENT: true;
    ERR_AMBIENT_CORRELATION_INVALID_OPTION: true;
  }
}

/** Every error @ambient/correlation throws. Match on `error.code`, never on the message. */
export const errors = defineErrors({
  ...usageErrorTemplates({
    argument: 'ERR_AMBIENT_CORRELATION_INVALID_ARGUMENT',
    option: 'ERR_AMBIENT_CORRELATION_INVALID_OPTION',
  }),
});

export type CorrelationErrorCode = CodesOf<typeof errors>;
export type CorrelationError = AmbientError<CorrelationErrorCode>;
