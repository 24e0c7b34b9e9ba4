// The variants of each framework's server (server.mjs), and how the tables name them. `als`, the hand-written
// AsyncLocalStorage middleware (or fastify hook), is the reference of issue #18's budgets; `als-echo` is the same
// middleware echoing its id as Ambient does by default, to tell Ambient's own cost from the echo's.
export const frameworkVariants = {
  express: ['bare', 'ambient', 'als', 'als-echo', 'cls-rtracer', 'express-http-context'],
  koa: ['bare', 'ambient', 'als', 'als-echo'],
  fastify: ['bare', 'ambient', 'als', 'als-echo', 'request-context'],
};
export const labels = {
  bare: 'bare',
  ambient: 'Ambient',
  als: 'hand-written AsyncLocalStorage',
  'als-echo': 'hand-written, echoing the id',
  'cls-rtracer': 'cls-rtracer',
  'express-http-context': 'express-http-context',
  'request-context': '@fastify/request-context',
  'ambient-diagnostics': 'Ambient + diagnostics on',
};

/** The frameworks BENCH_FRAMEWORKS names (comma-separated; all three by default), checked against the table above. */
export function selectedFrameworks() {
  const names = process.env.BENCH_FRAMEWORKS?.split(',') ?? Object.keys(frameworkVariants);
  const unknown = names.filter((name) => !Object.hasOwn(frameworkVariants, name));
  if (unknown.length > 0) {
    throw new Error(
      `BENCH_FRAMEWORKS: unknown framework ${unknown.join(', ')}; known: ${Object.keys(frameworkVariants).join(', ')}`,
    );
  }
  return names;
}
