import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { OnModuleInit } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import { runInRequestScope, type RequestPolicy } from '@ambient/http-context/internal';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** Servers whose listeners run in a request scope already: a second AmbientModule.forRoot() adds no second one. */
const scoped = new WeakSet<Server>();

/**
 * Puts every request of the application's HTTP server in its own requestContext scope, beneath everything Nest
 * and its platform do with it: express's or fastify's own handling, global and module middleware, guards,
 * interceptors, pipes, the handler, exception filters (the global one included) and listeners on `req` and
 * `res`. Middleware that opens a scope instead leaves out whatever runs before it, and an exception filter
 * reached through express's error path can run outside it (nestjs/nest#15317).
 *
 * Nest creates the server when the application is created and the module's providers before that, so the
 * listener is wrapped when the module initialises, before the server listens.
 */
export class HttpServerScope implements OnModuleInit {
  readonly #host: HttpAdapterHost;
  readonly #policy: RequestPolicy;

  constructor(host: HttpAdapterHost, policy: RequestPolicy) {
    this.#host = host;
    this.#policy = policy;
  }

  onModuleInit(): void {
    // A microservice on its own has no HTTP adapter; its handlers get their scope from the transport.
    const server = this.#host.httpAdapter?.getHttpServer() as Server | undefined;
    if (server === undefined || typeof server.listeners !== 'function' || scoped.has(server)) return;
    scoped.add(server);
    const policy = this.#policy;
    for (const listener of server.listeners('request') as RequestListener[]) {
      server.removeListener('request', listener);
      server.on('request', function ambientNestRequest(this: Server, req: IncomingMessage, res: ServerResponse) {
        runInRequestScope(req, res, policy, () => listener.call(this, req, res));
      });
    }
  }
}
