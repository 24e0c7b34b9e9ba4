import type { AmbientError } from '@ambient/core';
import { defineErrors, usageErrorTemplates, type CodesOf } from '@ambient/core/internal';

declare module '@ambient/core' {
  interface AmbientErrorCodes {
    ERR_AMBIENT_NESTJS_INVALID_OPTION: true;
    ERR_AMBIENT_NESTJS_INVALID_ARGUMENT: true;
  }
}

/** Every error @ambient/nestjs throws itself (the HTTP options' errors are @ambient/http-context's). */
export const errors = defineErrors({
  ...usageErrorTemplates({
    argument: 'ERR_AMBIENT_NESTJS_INVALID_ARGUMENT',
    option: 'ERR_AMBIENT_NESTJS_INVALID_OPTION',
  }),
});

export type NestjsContextErrorCode = CodesOf<typeof errors>;
export type NestjsContextError = AmbientError<NestjsContextErrorCode>;
