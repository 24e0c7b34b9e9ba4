import { describeConformance, readersFor, expressHarness, type ExpressModule } from '@ambient/conformance';
import express from 'express';
import express4 from 'express4';
import { expressContext, requestContext } from '@ambient/express-context';

/** The suite stores its own keys (user, marker) beside requestId; readersFor takes any get/set-by-key store. */
const readers = readersFor(requestContext);

// The universal cases at their quick sizes, and at full size where AMBIENT_CONFORMANCE_SIZE=full asks for them
// (scripts/node-matrix.mjs does on its Node 24 lines, one for each AsyncLocalStorage implementation).
const universalProfile = process.env.AMBIENT_CONFORMANCE_SIZE === 'full' ? 'universal' : 'quick';

const versions: Array<[string, unknown]> = [
  ['express 5', express],
  ['express 4', express4],
];

for (const [name, module] of versions) {
  describeConformance(
    expressHarness({
      name: `${name} + @ambient/express-context`,
      express: module as ExpressModule,
      contextMiddleware: [expressContext()],
      ...readers,
    }),
    { describe, it, afterAll },
    { profiles: [universalProfile, 'ambient', 'soak-ci'] },
  );
}
