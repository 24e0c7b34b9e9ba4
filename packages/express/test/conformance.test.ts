import { describeConformance, expressHarness, type ConformanceHarness, type ExpressModule } from '@ambient/conformance';
import express from 'express';
import express4 from 'express4';
import { expressContext, requestContext } from '@ambient/express-context';

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

const versions: Array<[string, unknown]> = [
  ['express 5', express],
  ['express 4', express4],
];

for (const [name, module] of versions) {
  describeConformance(
    expressHarness({ name: `${name} + @ambient/express-context`, express: module as ExpressModule, contextMiddleware: [expressContext()], ...readers }),
    { describe, it, afterAll },
  );
}
