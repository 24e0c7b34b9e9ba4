import type { AmbientError } from '@ambient/core';
import { defineErrors, optionErrorTemplates, type CodesOf } from '@ambient/core/adapter';

declare module '@ambient/core' {
  interface AmbientErrorCodes {
    ERR_AMBIENT_FASTIFY_INVALID_OPTION: true;
  }
}

/** Every error @ambient/fastify-context throws, beyond @ambient/http-context's for the shared options. */
export const errors = defineErrors({
  ...optionErrorTemplates('ERR_AMBIENT_FASTIFY_INVALID_OPTION'),
});

export type FastifyContextErrorCode = CodesOf<typeof errors>;
export type FastifyContextError = AmbientError<FastifyContextErrorCode>;
