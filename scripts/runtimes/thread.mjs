// The worker thread of conformance.mjs's thread case: answers each task with the scope it ran in.
import { parentPort } from 'node:worker_threads';
import { requestContext } from '@ambient/core';
import { messageListener } from '@ambient/threads-context';

parentPort.on(
  'message',
  messageListener(async () => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    parentPort.postMessage(requestContext.snapshot());
  }),
);
