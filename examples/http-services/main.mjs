// Two services on 127.0.0.1. "orders" handles GET /orders/:id and asks "billing" for the invoice with fetch;
// orders opted in to propagation towards billing's origin, so billing's scope gets orders' request id and
// trace. Neither service passes an id to any function: log() reads it from the request's scope.
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { httpContext, requestContext } from '@ambient/http-context';

const lines = [];
function log(service, message) {
  lines.push({ service, requestId: requestContext.get('requestId'), traceId: requestContext.get('traceId'), message });
}

async function listen(server) {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${server.address().port}`;
}

const billing = http.createServer(
  httpContext(async (req, res) => {
    log('billing', `invoice requested: ${req.url}`);
    await sleep(5);
    log('billing', 'invoice found');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ total: 42 }));
  }),
);
const billingUrl = await listen(billing);

const orders = http.createServer(
  httpContext(
    async (req, res) => {
      log('orders', `GET ${req.url}`);
      const invoice = await (await fetch(`${billingUrl}/invoices${req.url.replace('/orders', '')}`)).json();
      log('orders', `invoice total ${invoice.total}`);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ order: req.url, invoice }));
    },
    { propagation: { allowedOrigins: [billingUrl] } },
  ),
);
const ordersUrl = await listen(orders);

await Promise.all([
  fetch(`${ordersUrl}/orders/1`, { headers: { 'x-request-id': 'client-chose-this' } }),
  fetch(`${ordersUrl}/orders/2`, {
    headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
  }),
  fetch(`${ordersUrl}/orders/3`, { headers: { 'x-request-id': 'bad id with spaces' } }),
]).then((responses) => Promise.all(responses.map((response) => response.text())));

for (const requestId of new Set(lines.map((line) => line.requestId))) {
  console.log(`\nrequest ${requestId}`);
  for (const line of lines.filter((entry) => entry.requestId === requestId)) {
    console.log(
      `  ${line.service.padEnd(8)} ${line.traceId ? `trace ${line.traceId.slice(0, 8)}… ` : ''}${line.message}`,
    );
  }
}
const everyRequestSpansBoth = [...new Set(lines.map((line) => line.requestId))].every(
  (id) => new Set(lines.filter((line) => line.requestId === id).map((line) => line.service)).size === 2,
);
console.log(everyRequestSpansBoth ? '\nevery request id appears in both services' : '\nPROPAGATION FAILED');
billing.close();
orders.close();
process.exitCode = everyRequestSpansBoth ? 0 : 1;
