// The reference of the framework budgets: what a careful engineer writes by hand on AsyncLocalStorage to do the
// work Ambient's adapters do by default. It takes a valid incoming `x-request-id` (sent once, 1-128 characters of
// A-Z a-z 0-9 - _ . : = + / @) or makes a UUIDv7, echoes it in `x-request-id`, and binds every listener later
// added to `req` and `res` to the request's store, so that a body parser's `data`/`end` and `finish`/`close` run
// in it (nodejs/node#41285). It passes the conformance suite's universal profile (reference.test.mjs).
// `echoOnly` is the simplest echoing hook, which binds no listener: printed beside, and not conformant.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

export const als = new AsyncLocalStorage();

const validId = /^[A-Za-z0-9\-_.:=+/@]{1,128}$/;

/** The incoming id when it came once and is valid; a new UUIDv7 otherwise. */
function requestIdOf(rawHeaders) {
  let incoming;
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length === 12 && name.toLowerCase() === 'x-request-id') {
      incoming = rawHeaders[i + 1];
      count++;
    }
  }
  if (count === 1 && validId.test(incoming)) return incoming;
  // A UUIDv7: 48 bits of milliseconds in front of randomUUID()'s random bits.
  const ms = Date.now().toString(16).padStart(12, '0');
  return `${ms.slice(0, 8)}-${ms.slice(8)}-7${randomUUID().slice(15)}`;
}

/** `listener`, run in the store current now; `.listener` lets removeListener find it. */
function bound(listener) {
  if (typeof listener !== 'function') return listener;
  const store = als.getStore();
  function inScope(...args) {
    return als.run(store, Reflect.apply, listener, this, args);
  }
  inScope.listener = listener;
  return inScope;
}

// The prototype's own methods (a readable's on('data') also resumes it); once() and prependOnceListener() add
// through on() and prependListener().
const boundMethods = {
  on(event, listener) {
    return Object.getPrototypeOf(this).on.call(this, event, bound(listener));
  },
  addListener(event, listener) {
    return Object.getPrototypeOf(this).addListener.call(this, event, bound(listener));
  },
  prependListener(event, listener) {
    return Object.getPrototypeOf(this).prependListener.call(this, event, bound(listener));
  },
};

function bindListeners(emitter) {
  emitter.on = boundMethods.on;
  emitter.addListener = boundMethods.addListener;
  emitter.prependListener = boundMethods.prependListener;
}

/** The request's store, with its listeners bound to whatever store is current when each is added. */
function storeFor(req, res) {
  bindListeners(req);
  bindListeners(res);
  return { requestId: requestIdOf(req.rawHeaders) };
}

export const handWritten = {
  express: () => (req, res, next) => {
    const store = storeFor(req, res);
    res.setHeader('x-request-id', store.requestId);
    als.run(store, next);
  },
  koa: () => (ctx, next) => {
    const store = storeFor(ctx.req, ctx.res);
    ctx.res.setHeader('x-request-id', store.requestId);
    return als.run(store, next);
  },
  fastify: () => (request, reply, done) => {
    const store = storeFor(request.raw, reply.raw);
    reply.header('x-request-id', store.requestId);
    als.run(store, done);
  },
};

/** The simplest echoing hook: a fresh id, echoed, one AsyncLocalStorage#run; listeners are left unbound. */
export const echoOnly = {
  express: () => (req, res, next) => {
    const requestId = randomUUID();
    res.setHeader('x-request-id', requestId);
    als.run({ requestId }, next);
  },
  koa: () => (ctx, next) => {
    const requestId = randomUUID();
    ctx.res.setHeader('x-request-id', requestId);
    return als.run({ requestId }, next);
  },
  fastify: () => (_request, reply, done) => {
    const requestId = randomUUID();
    reply.header('x-request-id', requestId);
    als.run({ requestId }, done);
  },
};

/** fastify's echoing hook with its header set on the raw response: why Ambient echoes through reply.header. */
export function echoOnRaw(_request, reply, done) {
  const requestId = randomUUID();
  reply.raw.setHeader('x-request-id', requestId);
  als.run({ requestId }, done);
}

/** What the conformance harness and the routes read. */
export const readers = {
  readRequestId: () => als.getStore()?.requestId,
  setValue: (key, value) => {
    const store = als.getStore();
    if (store === undefined) throw new Error('no request');
    store[key] = value;
  },
  getValue: (key) => als.getStore()?.[key],
};
