// One server of apps.mjs in a process of its own, driven by the parent (harness.mjs's startChild).
//   node benchmarks/server.mjs <express|koa|fastify|full-stack> <variant>
import { appServer } from './apps.mjs';
import { serveForBenchmark } from './harness.mjs';

serveForBenchmark(await appServer(process.argv[2], process.argv[3]));
