// What httpContext adds per request over a hand-written `AsyncLocalStorage#run`, in nanoseconds, measured on
// real IncomingMessage/ServerResponse objects in one process, alternating (see ../harness.mjs). Far steadier
// than CPU seconds under load on a shared VM, and directly comparable with the no-context CPU per request.
import { AsyncLocalStorage } from 'node:async_hooks';
import { fileURLToPath } from 'node:url';
import { createRequestPolicy, runInRequestScope } from '@ambient/http-context/adapter';
import { alternate, measureInFreshProcesses, median, requestExchanges } from '../harness.mjs';

const processes = 3;

function measure() {
  const policy = createRequestPolicy({}, 'benchmark');
  const als = new AsyncLocalStorage();
  const newExchange = requestExchanges();
  const noop = () => undefined;
  let sink;
  const ns = alternate(
    {
      exchangeOnly(n) {
        for (let i = 0; i < n; i++) sink = newExchange();
      },
      rawAls(n) {
        for (let i = 0; i < n; i++) {
          const [req, res] = newExchange();
          sink = als.run({ value: i }, noop, req, res);
        }
      },
      httpContextScope(n) {
        for (let i = 0; i < n; i++) {
          const [req, res] = newExchange();
          sink = runInRequestScope(req, res, policy, noop);
        }
      },
      rejectionHandler(n) {
        for (let i = 0; i < n; i++) {
          const [req] = newExchange();
          sink = Promise.resolve(req).then(undefined, noop);
        }
      },
      promiseOnly(n) {
        for (let i = 0; i < n; i++) {
          const [req] = newExchange();
          sink = Promise.resolve(req);
        }
      },
    },
    { rounds: 9, iterations: 100_000 },
  );
  if (sink === Symbol.for('never')) console.error(sink);
  return {
    scope: ns.httpContextScope - ns.rawAls,
    rejectionHandler: ns.rejectionHandler - ns.promiseOnly,
  };
}

/** Nanoseconds per request that httpContext adds over raw AsyncLocalStorage: scope entry, and the rejection handler of an async listener. */
export async function measureScopeCost() {
  const samples = measureInFreshProcesses(fileURLToPath(import.meta.url), [], processes);
  return {
    scope: median(samples.map((s) => s.scope)),
    rejectionHandler: median(samples.map((s) => s.rejectionHandler)),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'measure')
  process.stdout.write(JSON.stringify(measure()));
