import type { FastifyPluginCallback } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { readOptions as readOwnOptions, rules } from '@ambient/core/adapter';
import type { RequestContextOptions } from '@ambient/http-context';
import { createRequestPolicy, runInRequestScope, type RequestPolicy } from '@ambient/http-context/adapter';
import { errors } from './errors.js';

export interface FastifyContextOptions extends RequestContextOptions {
  /**
   * Take the request id from fastify's own `request.id` (its `genReqId`/`requestIdHeader`), so fastify's log
   * lines and Ambient agree. Default: on when fastify was given a `requestIdHeader` (other than fastify 4's
   * default "request-id"); set it to `true` when you configured `genReqId`, which fastify does not report.
   */
  useFastifyRequestId?: boolean;
}

/** Options fastify itself passes to every plugin it registers. */
const registerOptions = ['prefix', 'logLevel', 'logSerializers'];

const ambientFastifyContext: FastifyPluginCallback<FastifyContextOptions> = (fastify, options, done) => {
  let policy: RequestPolicy;
  let fastifyIds: boolean;
  try {
    ({ policy, fastifyIds } = readOptions(options, fastify.initialConfig));
  } catch (error) {
    // A callback plugin reports through done(): a throw would leave fastify's boot (avvio) waiting forever.
    done(error as Error);
    return;
  }

  // The scope opens in onRequest and `next` runs inside it, so every later hook, the body parsers, the
  // handler and the error handler run in it. fastify runs preValidation/preHandler/the handler from the
  // body's `end` event (fastify/fastify-request-context#12, nodejs/node#34430): request.raw and reply.raw
  // are bound, so that event, and onResponse/onTimeout/onRequestAbort, fire in the scope too.
  fastify.addHook('onRequest', function ambientOnRequest(request, reply, next) {
    runInRequestScope(request.raw, reply.raw, policy, next, {
      requestId: fastifyIds ? String(request.id) : undefined,
      headerTarget: reply,
    });
  });
  done();
};

function readOptions(
  options: FastifyContextOptions,
  initialConfig: { requestIdHeader?: unknown },
): { policy: RequestPolicy; fastifyIds: boolean } {
  const where = 'fastify.register(fastifyContext, options)';
  const policy = createRequestPolicy(options, where, ['useFastifyRequestId', ...registerOptions]);
  // The shared options were checked by createRequestPolicy; the plugin's own under its own code.
  const { useFastifyRequestId } = readOwnOptions<Pick<FastifyContextOptions, 'useFastifyRequestId'>>(
    { useFastifyRequestId: options.useFastifyRequestId },
    { useFastifyRequestId: rules.boolean },
    { where, errors },
  );
  const header = initialConfig.requestIdHeader;
  return { policy, fastifyIds: useFastifyRequestId ?? (typeof header === 'string' && header !== 'request-id') };
}

/** The fastify 4 and 5 plugin: `fastify.register(fastifyContext, options?)`. */
export const fastifyContext = fastifyPlugin(ambientFastifyContext, {
  name: '@ambient/fastify-context',
  fastify: '4.x || 5.x',
});
