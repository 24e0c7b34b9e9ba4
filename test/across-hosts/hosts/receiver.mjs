// Host c's Collector stand-in: the OTLP/HTTP JSON receiver, listening on host c's address, appending every log
// record and span it is sent to a file as one JSON line (`type`: 'record' or 'span'), which the test reads.
// Stopped and started again by the test, it appends to the same file.
import { appendFileSync } from 'node:fs';
import { startOtlpReceiver } from '../../../packages/opentelemetry-context/test/smoke/otlp-receiver.mjs';

const { ADDRESS, PORT, RECEIVED } = process.env;
const receiver = await startOtlpReceiver({
  host: ADDRESS,
  port: Number(PORT),
  onReceived: (type, item) => appendFileSync(RECEIVED, `${JSON.stringify({ type, ...item })}\n`),
});
console.log(`receiving at ${receiver.url}`);
process.once('SIGTERM', async () => {
  await receiver.close();
  process.exit(0);
});
