// The Nest servers of the nestjs benchmark: the same route as apps.mjs (GET /users/:id -> an async store lookup
// -> JSON with the user and the request id read back after the await) as a Nest 12 controller, on express or
// fastify, with one of four ways of keeping the request's context:
//   bare          none (the route reads no id): what Nest itself costs
//   hand-written  the budgets' reference: hand-written.mjs's middleware, mounted as Nest middleware
//   nestjs-cls    nestjs-cls's ClsModule, mounted as middleware, generating an id
//   ambient       AmbientModule.forRoot()
// Plain JavaScript, so the decorators are applied as the functions they are, as TypeScript's output does.
import { handWritten, readers } from './hand-written.mjs';
import { findUser } from './apps.mjs';

/** The variant's module imports, its middleware (Nest's MiddlewareConsumer), and how the route reads the id. */
async function contextOf(variant) {
  if (variant === 'bare') return { imports: [], readId: () => undefined };
  if (variant === 'hand-written') {
    return { imports: [], middleware: handWritten.express(), readId: readers.readRequestId };
  }
  if (variant === 'nestjs-cls') {
    const { ClsModule, ClsServiceManager } = await import('nestjs-cls');
    const module = ClsModule.forRoot({ global: true, middleware: { mount: true, generateId: true } });
    return { imports: [module], readId: () => ClsServiceManager.getClsService().getId() };
  }
  if (variant === 'ambient') {
    const { AmbientModule, requestContext } = await import('@ambient/nestjs');
    return { imports: [AmbientModule.forRoot()], readId: () => requestContext.get('requestId') };
  }
  throw new Error(`unknown nestjs variant ${variant}`);
}

/** The `node:http` server of a Nest application on `platform` (express, fastify), initialised, not listening. */
export async function nestServer(platform, variant) {
  await import('reflect-metadata');
  const { Controller, Get, Module, Param } = await import('@nestjs/common');
  const { NestFactory } = await import('@nestjs/core');
  const { imports, middleware, readId } = await contextOf(variant);

  class UsersController {
    async get(id) {
      return { ...(await findUser(id)), requestId: readId() };
    }
  }
  Controller('users')(UsersController);
  Get(':id')(UsersController.prototype, 'get', Object.getOwnPropertyDescriptor(UsersController.prototype, 'get'));
  Param('id')(UsersController.prototype, 'get', 0);

  class UsersModule {
    configure(consumer) {
      if (middleware !== undefined) consumer.apply(middleware).forRoutes(UsersController);
    }
  }
  Module({ imports, controllers: [UsersController] })(UsersModule);

  const options = { logger: false };
  let app;
  if (platform === 'fastify') {
    const { FastifyAdapter } = await import('@nestjs/platform-fastify');
    app = await NestFactory.create(UsersModule, new FastifyAdapter(), options);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  } else {
    app = await NestFactory.create(UsersModule, options);
    await app.init();
  }
  return app.getHttpServer();
}
