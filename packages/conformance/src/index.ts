export { conformanceCases, describeConformance, runConformance, type CaseResult, type TestRegistrar } from './suite.js';
export type {
  AppRequest,
  AppResponse,
  BodyParserPlacement,
  ConformanceApp,
  ConformanceHarness,
  RunningServer,
  StartOptions,
} from './harness.js';
export type { CaseContext, ConformanceCase } from './case.js';
export { expressHarness, type ExpressHarnessOptions, type ExpressModule } from './harnesses/express.js';
export { fastifyHarness, type FastifyHarnessOptions, type FastifyInstanceLike } from './harnesses/fastify.js';
export { koaHarness, type KoaHarnessOptions, type KoaMiddleware, type KoaModule } from './harnesses/koa.js';
export { nodeHttpHarness, serveOnLoopback, type NodeHttpHarnessOptions } from './node-http-harness.js';
export { readersFor, type KeyValueContext } from './readers.js';
export { send, sendRaw, inParallel, type ClientRequestSpec, type ClientResponse } from './client.js';
