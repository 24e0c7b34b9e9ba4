import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { requestContext } from '@ambient/core';
import { warnings } from './errors.js';

/**
 * pino-http's `genReqId`: the request id is Ambient's, so `req.id`, the `req.id` that pino-http 11 serializes
 * into `req.log` lines and "request completed" (or `reqId` with `quietReqLogger`), and the `requestId` that
 * correlationMixin() writes agree.
 *
 *     app.use(expressContext());
 *     app.use(pinoHttp({ logger, genReqId: pinoHttpGenReqId }));
 *
 * pino-http calls it when its middleware runs; mounted before the Ambient adapter there is no request scope
 * yet, so it keeps an id the request already has (`req.id`) or makes a UUID, and warns once
 * (WARN_AMBIENT_PINO_HTTP_OUTSIDE_SCOPE), since the ids in the logs would then disagree.
 */
export function pinoHttpGenReqId(req: IncomingMessage): string {
  const requestId = requestContext.get('requestId');
  if (requestId !== undefined) return requestId;
  warnings.pinoHttpOutsideScope();
  const existing = (req as IncomingMessage & { id?: unknown }).id;
  return typeof existing === 'string' && existing.length > 0 ? existing : randomUUID();
}
