import { uuidv7 } from '@ambient/correlation';
import { requestIdFor, type RequestPolicy } from '@ambient/http-context/internal';
import { warnings } from './errors.js';

/** What fastify passes to a genReqId: the raw request (node:http's, or http2's compatibility request). */
export interface RawRequestHeaders {
  readonly rawHeaders: readonly string[];
}

/**
 * fastify's `genReqId` under Ambient's rules: the incoming header when it was sent once and is valid, else a
 * new id. fastify calls it before any hook and puts its result on `request.id` and in the bindings of
 * `request.log`, so the "incoming request" line and every later one carry the id requestContext will hold.
 */
export function createGenReqId(policy: RequestPolicy): (req: RawRequestHeaders) => string {
  return function ambientGenReqId(req) {
    try {
      return requestIdFor(req.rawHeaders, policy);
    } catch (error) {
      return afterThrow(error);
    }
  };
}

/**
 * The id requestContext takes for a `request.id` that fastify made some other way (its `requestIdHeader`, a
 * genReqId of the user's): kept when it passes `validateRequestId`, replaced by a new one otherwise, so the
 * scope and the echoed header never carry an id that failed validation.
 */
export function checkedRequestId(policy: RequestPolicy, id: unknown): string {
  try {
    const requestId = String(id);
    return policy.validate(requestId) ? requestId : policy.generate();
  } catch (error) {
    return afterThrow(error);
  }
}

/**
 * A user's validateRequestId or generateRequestId threw. fastify calls genReqId and the child logger factory
 * from its request listener, outside any hook, where a throw is an uncaught exception: the process would exit.
 */
function afterThrow(error: unknown): string {
  warnings.requestIdFailed(error);
  return uuidv7();
}
