// Four concurrent requests; prints each request's lines and records, grouped by request id: winston's and bunyan's
// JSON lines, and the records an OTLP receiver (a stand-in for a Collector, on 127.0.0.1) was sent.
import http from 'node:http';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { createApp } from './app.mjs';

const received = [];
const receiver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    for (const { scopeLogs } of JSON.parse(body).resourceLogs)
      for (const { logRecords } of scopeLogs)
        for (const { body: text, attributes } of logRecords)
          received.push({
            msg: text.stringValue,
            ...Object.fromEntries(attributes.map(({ key, value }) => [key, value.stringValue])),
          });
    res.end('{}');
  });
});
await once(receiver.listen(0, '127.0.0.1'), 'listening');

const out = new PassThrough();
const lines = [];
out.on('data', (chunk) =>
  lines.push(
    ...chunk
      .toString()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line)),
  ),
);
const { app, provider } = createApp({ out, otlpUrl: `http://127.0.0.1:${receiver.address().port}` });
const server = app.listen(0, '127.0.0.1');
await once(server, 'listening');

const orders = ['ada', 'grace', 'linus', 'margaret'];
const ids = await Promise.all(
  orders.map(async (order) => {
    const response = await fetch(`http://127.0.0.1:${server.address().port}/orders/${order}`);
    await response.text();
    return response.headers.get('x-request-id');
  }),
);
await provider.forceFlush();
for (const [i, requestId] of ids.entries()) {
  console.log(`\n# GET /orders/${orders[i]}, request ${requestId}`);
  for (const line of lines.filter((line) => line.requestId === requestId))
    console.log(`  ${(line.msg ?? line.message).padEnd(22)} order ${line.order}`);
  for (const record of received.filter((record) => record.requestId === requestId))
    console.log(`  ${`${record.msg} (OTLP)`.padEnd(22)} order ${record.order}`);
}
await provider.shutdown();
server.close();
receiver.close();
