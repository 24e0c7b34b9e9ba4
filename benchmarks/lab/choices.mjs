// The figures behind choices in the code that stay (benchmarks/README.md, "why the code looks the way it does"),
// re-measurable: each pair alternating in 9 rounds in one process, medians (nanoseconds move with the machine;
// read them as orders of magnitude), and fastify's echo counted under callgrind as the suite counts servers.
//   node benchmarks/lab/choices.mjs            (run it on Node 22 too: the enterWith row is about async_hooks)
import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import { Socket } from 'node:net';
import { createRequire } from 'node:module';
import { serverInstructions } from '../apps.mjs';
import { fixed, median, printTable } from '../harness.mjs';

const require = createRequire(import.meta.url);

/** ns an operation of each of `loops` (n operations a call), alternating in 9 rounds; medians. */
function alternate(loops, n) {
  const ns = Object.fromEntries(Object.keys(loops).map((name) => [name, []]));
  for (const loop of Object.values(loops)) loop(n);
  for (let round = 0; round < 9; round++) {
    for (const [name, loop] of Object.entries(loops)) {
      const start = process.hrtime.bigint();
      loop(n);
      ns[name].push(Number(process.hrtime.bigint() - start) / n);
    }
  }
  return Object.fromEntries(Object.entries(ns).map(([name, values]) => [name, median(values)]));
}

let sink;
const forward = (thisArg, args) => args.length;
// forwarding-function.ts: a template per arity, against one function whose `length` is defined afterwards.
const arity = alternate(
  {
    template: (n) => {
      for (let i = 0; i < n; i++) {
        sink = {
          wrapped(_1) {
            return forward(this, arguments);
          },
        }.wrapped;
      }
    },
    defineProperty: (n) => {
      for (let i = 0; i < n; i++) {
        const wrapped = function () {
          return forward(this, arguments);
        };
        sink = Object.defineProperty(wrapped, 'length', { value: 1, configurable: true });
      }
    },
  },
  200_000,
);

// bind-emitter.ts: the bound methods assigned to each request, on Node's own request and on express's (whose
// prototype express replaced), against nothing per request (express-context.ts binds the prototype once).
const { bindEmitter } = await import('@ambient/core');
const app = require('express')();
const socket = new Socket();
const emitters = alternate(
  {
    'a plain IncomingMessage': (n) => {
      for (let i = 0; i < n; i++) sink = bindEmitter(new http.IncomingMessage(socket));
    },
    "express's request": (n) => {
      for (let i = 0; i < n; i++)
        sink = bindEmitter(Object.setPrototypeOf(new http.IncomingMessage(socket), app.request));
    },
    "express's request, unbound": (n) => {
      for (let i = 0; i < n; i++) sink = Object.setPrototypeOf(new http.IncomingMessage(socket), app.request);
    },
  },
  20_000,
);

// registry.ts: entering a frame with enterWith and restoring it in `finally`, against AsyncLocalStorage#run,
// beside a second AsyncLocalStorage in use (OpenTelemetry's, a logger's).
const storage = new AsyncLocalStorage();
const other = new AsyncLocalStorage();
other.enterWith({});
const noop = () => 1;
const entering = alternate(
  {
    run: (n) => {
      for (let i = 0; i < n; i++) sink = storage.run(i, noop);
    },
    'enterWith + finally': (n) => {
      for (let i = 0; i < n; i++) {
        const prior = storage.getStore();
        storage.enterWith(i);
        try {
          sink = noop();
        } finally {
          storage.enterWith(prior);
        }
      }
    },
  },
  500_000,
);

// request-scope.ts: a request's raw header names, each compared with the four Ambient reads.
const names = ['Host', 'Connection', 'User-Agent', 'Accept', 'Accept-Encoding', 'Accept-Language', 'Cookie', 'Referer'];
const wanted = ['x-request-id', 'x-correlation-id', 'traceparent', 'tracestate'];
const headers = alternate(
  {
    'length, then lowercase': (n) => {
      for (let i = 0; i < n; i++) {
        for (const name of names) for (const w of wanted) if (name.length === w.length) sink = name.toLowerCase() === w;
      }
    },
    'length, first letter, then lowercase': (n) => {
      for (let i = 0; i < n; i++) {
        for (const name of names) {
          for (const w of wanted) {
            if (name.length !== w.length) continue;
            const first = name.charCodeAt(0);
            const lower = w.charCodeAt(0);
            sink = (first === lower || first + 32 === lower) && name.toLowerCase() === w;
          }
        }
      }
    },
  },
  200_000,
);

const rows = (figures) => Object.entries(figures).map(([name, ns]) => [name, ns.toFixed(1)]);
printTable(`Node ${process.version}: ns, medians of 9 alternating rounds`, [
  ['', 'ns'],
  ['a forwarding function of arity 1:', ''],
  ...rows(arity),
  ['bindEmitter(req), the request made too:', ''],
  ...rows(emitters),
  ['a frame entered and restored:', ''],
  ...rows(entering),
  ['a request of 8 headers read for 4 names:', ''],
  ...rows(headers),
]);

// fastify-context.ts: the echoed id through reply.header, against the raw response's setHeader.
const [reply, raw] = [
  await serverInstructions('fastify', 'echo-only'),
  await serverInstructions('fastify', 'echo-raw'),
];
console.log(
  `\nfastify's echoing hook, instructions a request: through reply.header ${fixed(reply.perUnit)}, on the raw ` +
    `response ${fixed(raw.perUnit)} (${((raw.perUnit / reply.perUnit - 1) * 100).toFixed(1)}% more)`,
);
if (sink === Symbol.for('never')) console.log(sink);
