import type { AmbientError } from '@ambient/core';
import {
  defineErrors,
  defineWarnings,
  usageErrorTemplates,
  type CodesOf,
  type WarningCodesOf,
} from '@ambient/core/internal';

declare module '@ambient/core' {
  interface AmbientErrorCodes {
    ERR_AMBIENT_FASTIFY_INVALID_OPTION: true;
  }
}

/** Every error @ambient/fastify-context throws, beyond @ambient/http-context's for the shared options. */
export const errors = defineErrors({
  ...usageErrorTemplates({ option: 'ERR_AMBIENT_FASTIFY_INVALID_OPTION' }),
});

const readme = 'https://github.com/ambient-js/ambient/tree/main/packages/fastify-context#warnings';

/**
 * Every warning @ambient/fastify-context emits (`process.on('warning')`, type `AmbientWarning`), each once per
 * process; the first three at registration, for fastify options under which fastify makes ids Ambient did not.
 */
export const warnings = defineWarnings({
  requestIdHeader: {
    code: 'WARN_AMBIENT_FASTIFY_REQUEST_ID_HEADER',
    once: true,
    message: (header: string) =>
      `fastify's requestIdHeader ("${header}") takes ids as sent, before Ambient checks them: give the header to ` +
      `fastifyContext instead (${readme}).`,
  },
  userGenReqId: {
    code: 'WARN_AMBIENT_FASTIFY_USER_GEN_REQ_ID',
    once: true,
    message: () =>
      `useFastifyRequestId keeps fastify's genReqId, whose ids Ambient checks only where it can: give fastifyContext ` +
      `the rules instead (${readme}).`,
  },
  genReqIdReplaced: {
    code: 'WARN_AMBIENT_FASTIFY_GEN_REQ_ID_REPLACED',
    once: true,
    message: () =>
      `fastifyContext replaced fastify's genReqId: pass your generator as generateRequestId, or set ` +
      `useFastifyRequestId: true to keep it (${readme}).`,
  },
  requestIdFailed: {
    code: 'WARN_AMBIENT_FASTIFY_REQUEST_ID_FAILED',
    once: true,
    message: (error: unknown) =>
      `validateRequestId or generateRequestId threw${error instanceof Error ? ` a ${error.name}` : ''}, so a UUIDv7 ` +
      `was used: make them not throw (${readme}).`,
  },
});

export type FastifyContextErrorCode = CodesOf<typeof errors>;
export type FastifyContextError = AmbientError<FastifyContextErrorCode>;
export type FastifyContextWarningCode = WarningCodesOf<typeof warnings>;
