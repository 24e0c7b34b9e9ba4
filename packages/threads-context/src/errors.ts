import type { AmbientError } from '@ambient/core';
import { defineErrors, usageErrorTemplates, type CodesOf } from '@ambient/core/internal';

declare module '@ambient/core' {
  interface AmbientErrorCodes {
    ERR_AMBIENT_THREADS_INVALID_OPTION: true;
    ERR_AMBIENT_THREADS_INVALID_ARGUMENT: true;
  }
}

/** Every error @ambient/threads-context throws. Match on `error.code`, never on the message. */
export const errors = defineErrors({
  ...usageErrorTemplates({
    argument: 'ERR_AMBIENT_THREADS_INVALID_ARGUMENT',
    option: 'ERR_AMBIENT_THREADS_INVALID_OPTION',
  }),
});

export type ThreadsContextErrorCode = CodesOf<typeof errors>;
export type ThreadsContextError = AmbientError<ThreadsContextErrorCode>;
