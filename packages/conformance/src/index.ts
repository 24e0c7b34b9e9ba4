export { describeConformance, type TestFunction, type TestRegistrar } from './describe.js';
export { runConformance, type CaseResult, type RunOptions } from './run.js';
export {
  conformanceCases,
  conformanceProfiles,
  defaultProfiles,
  type ConformanceOptions,
  type ConformanceProfile,
} from './profiles.js';
export type {
  AppRequest,
  AppResponse,
  BodyParserPlacement,
  ConformanceApp,
  ConformanceHarness,
  RunningServer,
  StartOptions,
} from './harness.js';
export type { CaseContext, CaseNeed, CaseProfile, CaseSize, CaseTag, ConformanceCase } from './case.js';
export { soakSizes, type SoakSize } from './cases/soak.js';
export { expressHarness, type ExpressHarnessOptions, type ExpressModule } from './harnesses/express.js';
export { fastifyHarness, type FastifyHarnessOptions, type FastifyInstanceLike } from './harnesses/fastify.js';
export { honoHarness, type HonoHarnessOptions, type HonoMiddleware, type HonoModule } from './harnesses/hono.js';
export { koaHarness, type KoaHarnessOptions, type KoaMiddleware, type KoaModule } from './harnesses/koa.js';
export { nodeHttpHarness, serveOnLoopback, type NodeHttpHarnessOptions } from './node-http-harness.js';
export { readersFor, type KeyValueContext } from './readers.js';
export { send, sendRaw, inParallel, type ClientRequestSpec, type ClientResponse } from './client.js';
