// What a function bound by a context manager costs per call, AmbientContextManager against OpenTelemetry's
// AsyncLocalStorageContextManager. http instrumentation binds every server request and response, so every
// listener a framework or body parser adds to them afterwards runs through such a function on each event,
// which arrives from the HTTP parser's or the socket's context (nodejs/node#41285): the calls here come from
// outside any scope too, and a function bound and called once, as most such listeners are. No budget; printed
// as the ops/s ratio, peer over Ambient.
//
// Both managers live in one process, alternating round by round, so on Node 20 both pay for two enabled
// AsyncLocalStorage instances alike; the median across fresh processes (see harness.mjs).
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { alternate, measureInFreshProcesses, median, printTable, row } from './harness.mjs';

const processes = 3;
const options = { rounds: 9, iterations: 300_000 };

async function measure() {
  const require = createRequire(import.meta.url);
  const api = require('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
  const { AmbientContextManager } = await import('@ambient/opentelemetry-context');
  const { requestContext } = await import('@ambient/core');
  const context = api.ROOT_CONTEXT.setValue(api.createContextKey('benchmark'), 1);
  const ambient = new AmbientContextManager().enable();
  const peer = new AsyncLocalStorageContextManager().enable();
  let sink = 0;
  const target = (n) => (sink += n);
  // An emitter bound before the request's scope opened (as http instrumentation binds `req`), with a listener
  // added inside it (as a body parser adds `data`), emitted from outside.
  const boundEmitter = (manager) => {
    const emitter = manager.bind(context, new EventEmitter());
    requestContext.run({ requestId: 'r' }, () => emitter.on('data', target));
    return emitter;
  };
  const ambientEmitter = boundEmitter(ambient);
  const peerEmitter = boundEmitter(peer);
  // Most listeners fire once (finish, end, close): binding counts as much as calling. Bound in batches inside
  // one request scope, then each called once from outside.
  const batch = 1000;
  const fresh = new Array(batch);
  const bindOnce = (manager) => (n) => {
    for (let done = 0; done < n; done += batch) {
      requestContext.run({ requestId: 'r' }, () => {
        for (let i = 0; i < batch; i++) fresh[i] = manager.bind(context, target);
      });
      for (let i = 0; i < batch; i++) fresh[i](1);
    }
  };
  // The same through a bound emitter, as on an instrumented request: http instrumentation binds the emitter
  // before the request's scope opens, then three listeners are added inside it (a body parser's `end`,
  // on-finished's `finish`, a `close`) and each is emitted once. Per listener, the emitter's binding included.
  // bind(fn) above also sets the wrapper's name, as the proposal's Snapshot.wrap does (some 700 ns); listeners
  // do not pay for that.
  const events = ['end', 'finish', 'close'];
  const listenOnce = (manager) => (n) => {
    for (let done = 0; done < n; done += events.length) {
      const emitter = manager.bind(context, new EventEmitter());
      requestContext.run({ requestId: 'r' }, () => {
        for (const event of events) emitter.once(event, target);
      });
      for (const event of events) emitter.emit(event, 1);
    }
  };
  const ambientInRequest = requestContext.run({ requestId: 'r' }, () => ambient.bind(context, target));
  const ambientOutside = ambient.bind(context, target);
  const peerBound = peer.bind(context, target);
  const ns = alternate(
    {
      peerFunction(n) {
        for (let i = 0; i < n; i++) peerBound(1);
      },
      ambientInRequest(n) {
        for (let i = 0; i < n; i++) ambientInRequest(1);
      },
      ambientOutside(n) {
        for (let i = 0; i < n; i++) ambientOutside(1);
      },
      peerEmit(n) {
        for (let i = 0; i < n; i++) peerEmitter.emit('data', 1);
      },
      ambientEmit(n) {
        for (let i = 0; i < n; i++) ambientEmitter.emit('data', 1);
      },
      peerBindOnce: bindOnce(peer),
      ambientBindOnce: bindOnce(ambient),
      peerListenOnce: listenOnce(peer),
      ambientListenOnce: listenOnce(ambient),
    },
    options,
  );
  if (sink === -1) console.error(sink);
  process.stdout.write(JSON.stringify(ns));
}

export function runOpenTelemetryBind() {
  const results = measureInFreshProcesses(fileURLToPath(import.meta.url), [], processes);
  const ns = (key) => median(results.map((result) => result[key]));
  printTable(
    `bound function calls, AsyncLocalStorageContextManager (baseline) vs AmbientContextManager, Node ${process.version}: ` +
      `median of ${processes} processes, each the median of ${options.rounds} alternating rounds`,
    [
      row('function bound inside a request', ns('peerFunction'), ns('ambientInRequest')),
      row('function bound outside any request', ns('peerFunction'), ns('ambientOutside')),
      row('bound emitter, listener added inside a request', ns('peerEmit'), ns('ambientEmit')),
      row('bound inside a request and called once, bind included', ns('peerBindOnce'), ns('ambientBindOnce')),
      row(
        'listener added inside a request, emitted once (per listener)',
        ns('peerListenOnce'),
        ns('ambientListenOnce'),
      ),
    ],
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === 'measure') await measure();
  else runOpenTelemetryBind();
}
