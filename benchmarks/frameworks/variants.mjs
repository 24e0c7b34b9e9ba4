// The variants of each framework's server (server.mjs), and how the tables name them. `als`, the hand-written
// AsyncLocalStorage middleware (or fastify hook), is the reference of issue #18's budgets.
export const frameworkVariants = {
  express: ['bare', 'ambient', 'als', 'cls-rtracer', 'express-http-context'],
  koa: ['bare', 'ambient', 'als'],
  fastify: ['bare', 'ambient', 'als', 'request-context'],
};
export const labels = {
  bare: 'bare',
  ambient: 'Ambient',
  als: 'hand-written AsyncLocalStorage',
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
