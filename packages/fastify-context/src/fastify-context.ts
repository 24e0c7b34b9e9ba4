import type { FastifyInstance, FastifyPluginCallback } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { readOptions as readOwnOptions, rules } from '@ambient/core/internal';
import type { RequestContextOptions } from '@ambient/http-context';
import { createRequestPolicy, runInRequestScope, type RequestPolicy } from '@ambient/http-context/internal';
import { errors, warnings } from './errors.js';
import { checkedRequestId, createGenReqId, type RawRequestHeaders } from './request-id.js';
import { requestLoggerFactory } from './request-logger.js';

export interface FastifyContextOptions extends RequestContextOptions {
  /**
   * Keep fastify's own `genReqId` (yours, or fastify's counter) instead of making Ambient's rules fastify's
   * genReqId. Its ids are then checked with `validateRequestId`, and one that fails is replaced, before
   * fastify's request logger and the hooks get it; the plugin warns at registration
   * (WARN_AMBIENT_FASTIFY_USER_GEN_REQ_ID). Default `false`: `request.id`, fastify's `reqId` and
   * requestContext hold one id, chosen by Ambient's rules.
   */
  useFastifyRequestId?: boolean;
}

/** Options fastify itself passes to every plugin it registers. */
const registerOptions = ['prefix', 'logLevel', 'logSerializers'];

/** What the plugin reads of fastify beyond its typed API: the request-id generator (fastify 4 and 5 have it). */
interface WithGenReqId {
  readonly genReqId: { readonly name: string };
}

const ambientFastifyContext: FastifyPluginCallback<FastifyContextOptions> = (fastify, options, done) => {
  try {
    setUp(fastify, options);
  } catch (error) {
    // A callback plugin reports through done(): a throw would leave fastify's boot (avvio) waiting forever.
    done(error as Error);
    return;
  }
  done();
};

function setUp(fastify: FastifyInstance, options: FastifyContextOptions): void {
  const { policy, useFastifyRequestId } = readOptions(options);
  const genReqId = createGenReqId(policy);
  warnAboutFastifyIds(fastify, useFastifyRequestId);
  // fastify calls genReqId before any hook (fastify/fastify#5170 added setGenReqId for plugins such as this
  // one), so the id is Ambient's from fastify's first line on. fastify still reads its own requestIdHeader
  // first when one is set: such ids, and those of a child context's own genReqId, are validated below.
  if (!useFastifyRequestId) fastify.setGenReqId(genReqId);

  // The ids that replaced one fastify made, by raw request: the child logger factory and the hook below both
  // ask for a request's id, and must get the same one.
  const replacements = new WeakMap<object, string>();
  // fastify reads its own requestIdHeader before it calls any genReqId: an id taken from there is fastify's
  // choice, not Ambient's, even where our genReqId is set.
  const fastifyHeader = headerFastifyReads(fastify);
  /**
   * The scope's id: request.id when Ambient's genReqId made it. When fastify took it from its own header,
   * Ambient's rules choose again (unless the user asked to keep fastify's ids), so `requestIdHeader: false`
   * or another header name of ours is never bypassed; an id of a child context's genReqId is checked.
   */
  const scopeRequestId = (server: unknown, rawRequest: RawRequestHeaders & object, id: unknown): string => {
    const fromFastifyHeader = fastifyHeader !== undefined && hasHeader(rawRequest, fastifyHeader);
    if ((server as WithGenReqId).genReqId === genReqId && !fromFastifyHeader) return String(id);
    let requestId = replacements.get(rawRequest);
    if (requestId === undefined) {
      requestId = fromFastifyHeader && !useFastifyRequestId ? genReqId(rawRequest) : checkedRequestId(policy, id);
      if (requestId !== id) replacements.set(rawRequest, requestId);
    }
    return requestId;
  };

  // fastify makes each request's logger before any hook: the factory gives it the scope's id (see
  // request-logger.ts). Without a logger, fastify's children are the logger itself and there is nothing to do.
  const log = fastify.log;
  if (log.child({}) !== log) {
    fastify.setChildLoggerFactory(requestLoggerFactory(fastify.childLoggerFactory, scopeRequestId));
  }

  // The scope opens in onRequest and `next` runs inside it, so every later hook, the body parsers, the
  // handler and the error handler run in it. fastify runs preValidation/preHandler/the handler from the
  // body's `end` event (fastify/fastify-request-context#12, nodejs/node#34430): request.raw and reply.raw
  // are bound, so that event, and onResponse/onTimeout/onRequestAbort, fire in the scope too.
  fastify.addHook('onRequest', function ambientOnRequest(request, reply, next) {
    const requestId = scopeRequestId(request.server, request.raw, request.id);
    // From here on request.id is that id too, for the hooks and the handler.
    if (request.id !== requestId) request.id = requestId;
    runInRequestScope(request.raw, reply.raw, policy, next, { requestId, headerTarget: reply });
  });
}

/** The header fastify itself takes ids from (lower case), if any: fastify 4 reads "request-id" by default. */
function headerFastifyReads(fastify: FastifyInstance): string | undefined {
  const header: unknown = fastify.initialConfig.requestIdHeader;
  return typeof header === 'string' && header !== '' ? header.toLowerCase() : undefined;
}

function hasHeader(rawRequest: RawRequestHeaders, name: string): boolean {
  const { rawHeaders } = rawRequest;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const key = rawHeaders[i]!;
    if (key.length === name.length && key.toLowerCase() === name) return true;
  }
  return false;
}

/**
 * Warnings, at registration, for fastify options under which fastify makes ids that Ambient's rules did not
 * choose. `initialConfig.requestIdHeader` is `false` when fastify reads no header (fastify 5's default), else
 * the header's name (fastify 4's default is "request-id").
 */
function warnAboutFastifyIds(fastify: FastifyInstance, useFastifyRequestId: boolean): void {
  const header = headerFastifyReads(fastify);
  const fastifyReadsHeader = header !== undefined;
  if (fastifyReadsHeader) warnings.requestIdHeader(header);
  if (useFastifyRequestId) {
    warnings.userGenReqId();
    return;
  }
  // fastify's own generator is named `defaultGenReqId` (fastify 4 and 5); any other, with no header wrapping
  // it, came from the user's genReqId option or a setGenReqId, which setUp replaces.
  if (!fastifyReadsHeader && (fastify as unknown as WithGenReqId).genReqId.name !== 'defaultGenReqId') {
    warnings.genReqIdReplaced();
  }
}

function readOptions(options: FastifyContextOptions): { policy: RequestPolicy; useFastifyRequestId: boolean } {
  const where = 'fastify.register(fastifyContext, options)';
  const policy = createRequestPolicy(options, where, ['useFastifyRequestId', ...registerOptions]);
  // The shared options were checked by createRequestPolicy; the plugin's own under its own code.
  const { useFastifyRequestId = false } = readOwnOptions<Pick<FastifyContextOptions, 'useFastifyRequestId'>>(
    { useFastifyRequestId: options.useFastifyRequestId },
    { useFastifyRequestId: rules.boolean },
    { where, errors },
  );
  return { policy, useFastifyRequestId };
}

/**
 * The fastify 4 and 5 plugin: `fastify.register(fastifyContext, options?)`. fastify 4.26 is the first with
 * `setGenReqId`.
 */
export const fastifyContext = fastifyPlugin(ambientFastifyContext, {
  name: '@ambient/fastify-context',
  fastify: '^4.26.0 || 5.x',
});
