import formbody from '@fastify/formbody';
import { describeConformance, fastifyHarness, type ConformanceHarness, type FastifyInstanceLike } from '@ambient/conformance';
import fastify from 'fastify';
import fastify4 from 'fastify4';
import formbody7 from 'formbody7';
import { fastifyContext, requestContext } from '@ambient/fastify-context';

declare module '@ambient/core' {
  interface RequestStore {
    user?: string;
    marker?: object;
  }
}

type SuiteKey = 'user' | 'marker';

const readers: Pick<ConformanceHarness, 'readRequestId' | 'readTrace' | 'setValue' | 'getValue'> = {
  readRequestId: () => requestContext.get('requestId'),
  readTrace: () => ({ traceId: requestContext.get('traceId'), spanId: requestContext.get('spanId') }),
  setValue: (key, value) => requestContext.set(key as SuiteKey, value as never),
  getValue: (key) => requestContext.get(key as SuiteKey),
};

const versions: Array<[string, () => FastifyInstanceLike, unknown]> = [
  ['fastify 5', () => fastify() as unknown as FastifyInstanceLike, formbody],
  ['fastify 4', () => fastify4() as FastifyInstanceLike, formbody7],
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
  );
}
