// fastify 4 and its @fastify/formbody 7, installed under npm aliases for the conformance run on both majors;
// their shapes are checked structurally by fastifyHarness (FastifyInstanceLike).
declare module 'fastify4' {
  const fastify: (options?: Record<string, unknown>) => unknown;
  export default fastify;
}
declare module 'formbody7' {
  const formbody: unknown;
  export default formbody;
}
