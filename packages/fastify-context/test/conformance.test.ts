import formbody from '@fastify/formbody';
import { describeConformance, readersFor, fastifyHarness, type FastifyInstanceLike } from '@ambient/conformance';
import fastify from 'fastify';
import fastify4 from 'fastify4';
import formbody7 from 'formbody7';
import { fastifyContext, requestContext } from '@ambient/fastify-context';

/** The suite stores its own keys (user, marker) beside requestId; readersFor takes any get/set-by-key store. */
const readers = readersFor(requestContext);

// The universal cases at their quick sizes, and at full size where AMBIENT_CONFORMANCE_SIZE=full asks for them
// (scripts/node-matrix.mjs does on its Node 24 lines, one for each AsyncLocalStorage implementation).
const universalProfile = process.env.AMBIENT_CONFORMANCE_SIZE === 'full' ? 'universal' : 'quick';

const versions: Array<[string, () => FastifyInstanceLike, unknown]> = [
  ['fastify 5', () => fastify() as unknown as FastifyInstanceLike, formbody],
  // requestIdHeader: false: fastify 4 reads its own "request-id" header by default, which the plugin warns about.
  ['fastify 4', () => fastify4({ requestIdHeader: false }) as FastifyInstanceLike, formbody7],
];

for (const [name, createFastify, formbodyPlugin] of versions) {
  describeConformance(
    fastifyHarness({
      name: `${name} + @ambient/fastify-context`,
      createFastify,
      register: async (app) => {
        await app.register(fastifyContext);
        await app.register(formbodyPlugin);
      },
      ...readers,
    }),
    { describe, it, afterAll },
    { profiles: [universalProfile, 'ambient', 'soak-ci'] },
  );
}
