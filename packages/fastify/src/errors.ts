import type { AmbientError } from '@ambient/core';
import {
  defineErrors,
  defineWarnings,
  describeValue,
  optionErrorTemplates,
  type CodesOf,
  type WarningCodesOf,
} from '@ambient/core/adapter';

declare module '@ambient/core' {
  interface AmbientErrorCodes {
    ERR_AMBIENT_FASTIFY_INVALID_OPTION: true;
  }
}

/** Every error @ambient/fastify-context throws, beyond @ambient/http-context's for the shared options. */
export const errors = defineErrors({
  ...optionErrorTemplates('ERR_AMBIENT_FASTIFY_INVALID_OPTION'),
});

/**
 * Every warning @ambient/fastify-context emits (`process.on('warning')`, type `AmbientWarning`), each once per
 * process. The first three are emitted at registration, for fastify options under which fastify makes request
 * ids that Ambient's rules did not choose; each message says what to write instead.
 */
export const warnings = defineWarnings({
  requestIdHeader: {
    code: 'WARN_AMBIENT_FASTIFY_REQUEST_ID_HEADER',
    once: true,
    message: (header: string) =>
      `fastify's requestIdHeader ("${header}"${header === 'request-id' ? ", fastify 4's default" : ''}) makes ` +
      'fastify take request.id from that header as sent, before any hook. fastifyContext replaces an invalid ' +
      "one before fastify's request logger and its own hook get it, but not where it does not reach: onRequest " +
      "hooks added before it, fastify's default 404 handler's first line, routes and plugins with a " +
      'childLoggerFactory of their own. Take requestIdHeader out of fastify() (on fastify 4, set it to false) ' +
      'and give the header to fastifyContext: ' +
      `register(fastifyContext, { requestIdHeader: "${header}" }).`,
  },
  userGenReqId: {
    code: 'WARN_AMBIENT_FASTIFY_USER_GEN_REQ_ID',
    once: true,
    message: () =>
      "useFastifyRequestId keeps fastify's genReqId, which is not Ambient's. fastifyContext replaces an id it " +
      "makes that fails validateRequestId before fastify's request logger and its own hook get it, but not where " +
      "it does not reach: onRequest hooks added before it, fastify's default 404 handler's first line, " +
      "routes and plugins with a childLoggerFactory of their own; and fastify's default ids (req-1, req-2, ...) " +
      'repeat across processes. Leave useFastifyRequestId off and give fastifyContext the rules instead ' +
      '(requestIdHeader, validateRequestId, generateRequestId).',
  },
  genReqIdReplaced: {
    code: 'WARN_AMBIENT_FASTIFY_GEN_REQ_ID_REPLACED',
    once: true,
    message: () =>
      "fastify was given a genReqId: fastifyContext replaces it with Ambient's request-id rules, so that " +
      "request.id, fastify's reqId and requestContext agree. Pass your generator to fastifyContext as " +
      'generateRequestId, or set useFastifyRequestId: true to keep your genReqId.',
  },
  requestIdFailed: {
    code: 'WARN_AMBIENT_FASTIFY_REQUEST_ID_FAILED',
    once: true,
    message: (error: unknown) =>
      'validateRequestId or generateRequestId threw ' +
      (error instanceof Error ? `a ${error.name}` : describeValue(error)) +
      '; a UUIDv7 was used. fastify makes request ids before any hook, where a throw would be uncaught and ' +
      'end the process: make them not throw.',
  },
});

export type FastifyContextErrorCode = CodesOf<typeof errors>;
export type FastifyContextError = AmbientError<FastifyContextErrorCode>;
export type FastifyContextWarningCode = WarningCodesOf<typeof warnings>;
