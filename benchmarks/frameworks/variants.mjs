// The variants of each framework's server (server.mjs), and how the tables name them.
export const frameworkVariants = {
  express: ['bare', 'ambient', 'als', 'cls-rtracer', 'express-http-context'],
  koa: ['bare', 'ambient', 'als'],
  fastify: ['bare', 'ambient', 'request-context'],
};
export const labels = {
  bare: 'bare',
  ambient: 'Ambient',
  als: 'hand-written AsyncLocalStorage',
  'cls-rtracer': 'cls-rtracer',
  'express-http-context': 'express-http-context',
  'request-context': '@fastify/request-context',
};
