import { ServerResponse } from 'node:http';

const kOwner = Symbol('@ambient/diagnostics.responseOwner');

/**
 * The code that ends a response is its request's own, whichever framework calls `res.end` (express's res.send,
 * koa's respond, fastify's reply.send): it must run in that request's scope. A handler whose flow went through a
 * callback another request ran (a shared batch, a pool hand-off) ends its response there: reported as crossed.
 * One wrapper on ServerResponse.prototype.end, and each followed response's owner in a property of its own (a
 * symbol nobody lists): a WeakMap entry per response cost more under load (benchmarks/README.md#why-the-code-looks-the-way-it-does).
 */
export function watchResponseEnds(boundary: (place: string, ownerRequestId: string) => void): {
  readonly follow: (res: object, requestId: string) => void;
  readonly undo: () => void;
} {
  const prototype = ServerResponse.prototype as unknown as { end: (this: object, ...args: unknown[]) => unknown };
  const original = prototype.end;
  const end = function end(this: object, ...args: unknown[]): unknown {
    const owner = (this as { [kOwner]?: unknown })[kOwner];
    if (typeof owner === 'string') boundary('the response end', owner);
    return Reflect.apply(original, this, args);
  };
  prototype.end = end;
  return {
    follow: (res, requestId) => {
      (res as { [kOwner]?: string })[kOwner] = requestId;
    },
    undo: () => {
      // Only where ours is still there: a wrapper installed since stays.
      if (prototype.end === end) prototype.end = original;
    },
  };
}
