import { nodeHttpHarness, type ConformanceHarness } from '@ambient/conformance';
import { httpContext, requestContext } from '@ambient/http-context';

declare module '@ambient/core' {
  interface RequestStore {
    /** Values the conformance suite stores in each request's scope. */
    user?: string;
    marker?: object;
  }
}

type SuiteKey = 'user' | 'marker';

/** The conformance suite's view of httpContext on node:http; its error path is httpContext's onError. */
export const ambientHttpHarness: ConformanceHarness = nodeHttpHarness({
  name: '@ambient/http-context (node:http)',
  wrap: (listener, onError) => httpContext(listener, { onError }),
  readRequestId: () => requestContext.get('requestId'),
  readTrace: () => ({ traceId: requestContext.get('traceId'), spanId: requestContext.get('spanId') }),
  setValue: (key, value) => requestContext.set(key as SuiteKey, value as never),
  getValue: (key) => requestContext.get(key as SuiteKey),
});
