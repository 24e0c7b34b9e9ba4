import type { DynamicModule } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService, HttpAdapterHost } from '@nestjs/core';
import { requestContext } from '@ambient/core';
import type { RequestContextOptions } from '@ambient/http-context';
import { createRequestPolicy } from '@ambient/http-context/internal';
import { HttpServerScope } from './http-server-scope.js';
import { RequestContext } from './request-context-token.js';
import { ScheduleScopes } from './schedule-scopes.js';
import { scopeMicroservices } from './microservice-scopes.js';

const microservicesScoped = Symbol('@ambient/nestjs microservices scoped');

/** The HTTP rules every Ambient adapter shares: request id header, validation, echo, `traceparent`, propagation. */
export type AmbientModuleOptions = RequestContextOptions;

/**
 * Request context for a Nest application: import `AmbientModule.forRoot()` once, in the root module. Every
 * request then runs in its own requestContext scope from the moment the server receives it, so that guards,
 * interceptors, pipes, handlers, services and exception filters all read the same request id and trace; and each
 * tick of @nestjs/schedule's `@Cron`, `@Interval` and `@Timeout` runs in a scope of its own. Global; provides
 * `RequestContext`.
 */
export class AmbientModule {
  static forRoot(options?: AmbientModuleOptions): DynamicModule {
    // Read here, where a wrong option throws at startup with the call that passed it.
    const policy = createRequestPolicy(options, 'AmbientModule.forRoot(options)');
    return {
      module: AmbientModule,
      global: true,
      imports: [DiscoveryModule],
      providers: [
        { provide: RequestContext, useValue: requestContext },
        {
          provide: HttpServerScope,
          useFactory: (host: HttpAdapterHost) => new HttpServerScope(host, policy),
          inject: [HttpAdapterHost],
        },
        // Nest awaits a provider's factory before it registers any microservice handler.
        { provide: microservicesScoped, useFactory: () => scopeMicroservices().then(() => true) },
        {
          provide: ScheduleScopes,
          useFactory: (discovery: DiscoveryService) => new ScheduleScopes(discovery),
          inject: [DiscoveryService],
        },
      ],
      exports: [RequestContext],
    };
  }
}
