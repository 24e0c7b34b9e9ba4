import { bodyParser } from '@koa/bodyparser';
import { describeConformance, readersFor, koaHarness, type KoaMiddleware, type KoaModule } from '@ambient/conformance';
import Koa from 'koa';
import Koa2 from 'koa2';
import { koaContext, requestContext } from '@ambient/koa-context';

/** The suite stores its own keys (user, marker) beside requestId; readersFor takes any get/set-by-key store. */
const readers = readersFor(requestContext);

// The universal cases at their quick sizes, and at full size where AMBIENT_CONFORMANCE_SIZE=full asks for them
// (scripts/node-matrix.mjs does on its Node 24 lines, one for each AsyncLocalStorage implementation).
const universalProfile = process.env.AMBIENT_CONFORMANCE_SIZE === 'full' ? 'universal' : 'quick';

for (const [name, module] of [
  ['koa 3', Koa],
  ['koa 2', Koa2],
] as const) {
  describeConformance(
    koaHarness({
      name: `${name} + @ambient/koa-context`,
      koa: module as KoaModule,
      bodyParser: () => bodyParser() as unknown as KoaMiddleware,
      contextMiddleware: [koaContext() as unknown as KoaMiddleware],
      ...readers,
    }),
    { describe, it, afterAll },
    { profiles: [universalProfile, 'ambient', 'soak-ci'] },
  );
}
