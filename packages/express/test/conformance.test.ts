import { describeConformance, readersFor, expressHarness, type ExpressModule } from '@ambient/conformance';
import express from 'express';
import express4 from 'express4';
import { expressContext, requestContext } from '@ambient/express-context';

/** The suite stores its own keys (user, marker) beside requestId; readersFor takes any get/set-by-key store. */
const readers = readersFor(requestContext);

// The universal cases, at the quick sizes where scripts/node-matrix.mjs asks for them on a repeat line.
const universalProfile = process.env.AMBIENT_CONFORMANCE_SIZE === 'quick' ? 'quick' : 'universal';

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
