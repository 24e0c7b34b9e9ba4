// Runs the app with diagnostics on and sends it the traffic of a quiet minute, squeezed into a second. The app
// itself has no diagnostics code: in your own app, `AMBIENT_DIAGNOSTICS=1 node --import @ambient/diagnostics`
// does what the first line below does, with the default ages (a retained scope is reported 10 s after close).
// demo.mjs runs this with --expose-gc only so that the end of the run can force the full collections a real
// process runs on its own, and the retained-scope report comes in seconds.
import { once } from 'node:events';
import { enableDiagnostics } from '@ambient/diagnostics';
import { correlationMixin } from '@ambient/pino-context';
import pino from 'pino';
import { createApp } from './app.mjs';

const diagnostics = enableDiagnostics({ retainedAfterMs: 2000, retainedSampleEvery: 1, timerGraceMs: 500 });

const logger = pino({ mixin: correlationMixin() }, pino.destination({ dest: 1, sync: true }));
const server = createApp({ logger }).listen(0, '127.0.0.1');
await once(server, 'listening');
const base = `http://127.0.0.1:${server.address().port}`;
const send = (path, init) => fetch(`${base}${path}`, { ...init, keepalive: false }).then((response) => response.text());
/** Resolves once the app has handled the arrival of a request for `path` (its routes run synchronously). */
const arrived = (path) =>
  new Promise((resolve) => {
    const onRequest = (req) => {
      if (req.url !== path) return;
      server.off('request', onRequest);
      resolve();
    };
    server.on('request', onRequest);
  });

await Promise.all([send('/prices/tea'), send('/prices/coffee')]);
// The stock requests must reach the app in this order (a flush before coffee would leave coffee waiting for ever):
// each is sent once the app has taken in the one before, not after a pause a loaded machine can outlast.
const teaArrived = arrived('/stock/tea');
const first = send('/stock/tea');
await teaArrived;
const coffeeArrived = arrived('/stock/coffee');
await Promise.all([first, send('/stock/coffee'), coffeeArrived.then(() => send('/stock/flush', { method: 'POST' }))]);
await send('/reports/daily-sales/subscribe', { method: 'POST' });
server.close();
server.closeAllConnections();
// Past the timer grace and the retained-scope age.
for (let waited = 0; waited < 3000; waited += 200) {
  globalThis.gc();
  await new Promise((resolve) => setTimeout(resolve, 200));
}
console.error(`\nreport(): ${JSON.stringify(diagnostics.report())}`);
