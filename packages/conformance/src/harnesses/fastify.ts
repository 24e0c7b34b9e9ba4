import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { ConformanceHarness, RunningServer } from '../harness.js';

/** The parts of a fastify request and reply (4 or 5) the harness uses. */
interface FastifyRequest {
  readonly raw: IncomingMessage;
  readonly url: string;
  readonly body?: unknown;
}
interface FastifyReply {
  readonly raw: ServerResponse;
  code(status: number): FastifyReply;
  send(body: unknown): FastifyReply;
}
type Done = (error?: Error | null, body?: unknown) => void;

/** The parts of a fastify instance (4 or 5) the harness uses. */
export interface FastifyInstanceLike {
  register(plugin: unknown, options?: unknown): unknown;
  addHook(name: 'preHandler', hook: (request: FastifyRequest, reply: FastifyReply) => Promise<void>): unknown;
  addContentTypeParser(
    type: string,
    parser: (request: FastifyRequest, payload: IncomingMessage, done: Done) => void,
  ): unknown;
  route(options: {
    method: string[];
    url: string;
    handler: (request: FastifyRequest, reply: FastifyReply) => unknown;
  }): unknown;
  setErrorHandler(handler: (error: unknown, request: FastifyRequest, reply: FastifyReply) => unknown): unknown;
  listen(options: { port: number; host: string }): Promise<unknown>;
  close(): Promise<unknown>;
  readonly server: Server;
}

export interface FastifyHarnessOptions extends Omit<ConformanceHarness, 'start' | 'bodyParsers'> {
  /** Creates the fastify instance under test (fastify 5, or an npm alias such as `fastify4`). */
  readonly createFastify: () => FastifyInstanceLike;
  /** Registers the library's context plugin (and @fastify/formbody for urlencoded bodies) on the instance. */
  readonly register: (fastify: FastifyInstanceLike) => void | Promise<void>;
}

/**
 * A harness serving the suite's app with fastify. fastify always parses bodies after its onRequest hooks,
 * from the body's `end` event (placement "after"): JSON with its own parser, urlencoded through the
 * registered plugin, and every other type left unread for the suite's own `data`/`end` listeners.
 */
export function fastifyHarness(options: FastifyHarnessOptions): ConformanceHarness {
  const { createFastify, register, ...readers } = options;
  return {
    ...readers,
    bodyParsers: ['after'],
    async start(app): Promise<RunningServer> {
      const fastify = createFastify();
      await register(fastify);
      fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
      fastify.addHook('preHandler', (request, reply) => app.middleware(request.raw, reply.raw));
      fastify.route({
        method: ['GET', 'POST'],
        url: '/*',
        // Not async: a synchronous throw from handle() takes fastify's synchronous error path.
        handler(request, reply) {
          const path = new URL(request.url, 'http://127.0.0.1').pathname;
          return app
            .handle({ req: request.raw, res: reply.raw, path, body: request.body })
            .then((response) => reply.code(response.status).send(response.body));
        },
      });
      fastify.setErrorHandler((error, _request, reply) => {
        const response = app.handleError(error);
        return reply.code(response.status).send(response.body);
      });
      await fastify.listen({ port: 0, host: '127.0.0.1' });
      const address = fastify.server.address();
      if (address === null || typeof address === 'string') throw new Error('the server has no port');
      return {
        port: address.port,
        close: async () => {
          fastify.server.closeAllConnections();
          await fastify.close();
        },
      };
    },
  };
}
