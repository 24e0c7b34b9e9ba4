// One server of the framework benchmarks (apps.mjs), in a process of its own, driven by load.mjs.
//   node server.mjs <express|koa|fastify> <variant>
import { serveForBenchmark } from '../load.mjs';
import { frameworkServer } from './apps.mjs';

const [framework, variant] = process.argv.slice(2);
serveForBenchmark(await frameworkServer(framework, variant));
