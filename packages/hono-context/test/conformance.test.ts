import { describeConformance, readersFor, honoHarness, type HonoMiddleware } from '@ambient/conformance';
import { createAdaptorServer } from '@hono/node-server';
import { createAdaptorServer as createAdaptorServer1 } from 'hono-node-server1';
import { Hono } from 'hono';
import { honoContext, requestContext } from '@ambient/hono-context';

/** The suite stores its own keys (user, marker) beside requestId; readersFor takes any get/set-by-key store. */
const readers = readersFor(requestContext);

// The universal cases at their quick sizes, and at full size where AMBIENT_CONFORMANCE_SIZE=full asks for them
// (scripts/node-matrix.mjs does on its Node 24 lines, one for each AsyncLocalStorage implementation).
const universalProfile = process.env.AMBIENT_CONFORMANCE_SIZE === 'full' ? 'universal' : 'quick';

for (const [name, serve] of [
  ['@hono/node-server 2', createAdaptorServer],
  ['@hono/node-server 1', createAdaptorServer1],
] as const) {
  describeConformance(
    honoHarness({
      name: `hono 4 on ${name} + @ambient/hono-context`,
      hono: Hono,
      createAdaptorServer: serve as never,
      contextMiddleware: [honoContext() as unknown as HonoMiddleware],
      ...readers,
    }),
    { describe, it, afterAll },
    { profiles: [universalProfile, 'ambient', 'soak-ci'] },
  );
}
