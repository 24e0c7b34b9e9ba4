import { nodeHttpHarness, readersFor, type ConformanceHarness } from '@ambient/conformance';
import { httpContext, requestContext } from '@ambient/http-context';

/** The conformance suite's view of httpContext on node:http; its error path is httpContext's onError. */
export const ambientHttpHarness: ConformanceHarness = nodeHttpHarness({
  name: '@ambient/http-context (node:http)',
  wrap: (listener, onError) => httpContext(listener, { onError }),
  // The suite stores its own keys (user, marker) beside requestId; readersFor takes any get/set-by-key store.
  ...readersFor(requestContext),
});
