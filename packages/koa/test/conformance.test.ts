import { bodyParser } from '@koa/bodyparser';
import { describeConformance, koaHarness, type ConformanceHarness, type KoaMiddleware, type KoaModule } from '@ambient/conformance';
import Koa from 'koa';
import Koa2 from 'koa2';
import { koaContext, requestContext } from '@ambient/koa-context';

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

for (const [name, module] of [['koa 3', Koa], ['koa 2', Koa2]] as const) {
  describeConformance(
    koaHarness({
      name: `${name} + @ambient/koa-context`,
      koa: module as unknown as KoaModule,
      bodyParser: () => bodyParser() as unknown as KoaMiddleware,
      contextMiddleware: [koaContext() as unknown as KoaMiddleware],
      ...readers,
    }),
    { describe, it, afterAll },
  );
}
