import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { requestContext } from '@ambient/core';
import { warnings } from './errors.js';

/**
 * pino-http's `genReqId`: the request id is Ambient's, so `req.id`, the ids pino-http writes and the `requestId`
 * that correlationMixin() writes agree. Mounted before the Ambient adapter there is no request scope yet: it
 * keeps the request's own `req.id` or makes a UUID, and warns once (WARN_AMBIENT_PINO_HTTP_OUTSIDE_SCOPE).
 *
 *     app.use(expressContext());
 *     app.use(pinoHttp({ logger, genReqId: pinoHttpGenReqId }));
 */
export function pinoHttpGenReqId(req: IncomingMessage): string {
  const requestId = requestContext.get('requestId');
  if (requestId !== undefined) return requestId;
  warnings.pinoHttpOutsideScope();
  const existing = (req as IncomingMessage & { id?: unknown }).id;
  return typeof existing === 'string' && existing.length > 0 ? existing : randomUUID();
}
