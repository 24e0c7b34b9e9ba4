import { describeConformance, readersFor, honoHarness, type HonoMiddleware } from '@ambient/conformance';
import { createAdaptorServer } from '@hono/node-server';
import { createAdaptorServer as createAdaptorServer1 } from 'hono-node-server1';
import { Hono } from 'hono';
import { Hono as Hono46 } from 'hono4-6';
import { honoContext, requestContext } from '@ambient/hono-context';

/** The suite stores its own keys (user, marker) beside requestId; readersFor takes any get/set-by-key store. */
const readers = readersFor(requestContext);

// The universal cases at their quick sizes, and at full size where AMBIENT_CONFORMANCE_SIZE=full asks for them
// (scripts/node-matrix.mjs does on its Node 24 lines, one for each AsyncLocalStorage implementation).
const universalProfile = process.env.AMBIENT_CONFORMANCE_SIZE === 'full' ? 'universal' : 'quick';

// Hono 4.13 on both majors of @hono/node-server, and the peer range's floor, 4.6, on node-server 1.
for (const [name, hono, serve] of [
  ['hono 4.13 on @hono/node-server 2', Hono, createAdaptorServer],
  ['hono 4.13 on @hono/node-server 1', Hono, createAdaptorServer1],
  ['hono 4.6 on @hono/node-server 1', Hono46, createAdaptorServer1],
] as const) {
  describeConformance(
    honoHarness({
      name: `${name} + @ambient/hono-context`,
      hono: hono,
      createAdaptorServer: serve as never,
      contextMiddleware: [honoContext() as unknown as HonoMiddleware],
      ...readers,
    }),
    { describe, it, afterAll },
    { profiles: [universalProfile, 'ambient', 'soak-ci'] },
  );
}
