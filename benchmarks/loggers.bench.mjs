// Per log line, in instructions (callgrind; each variant a process of its own, the lines inside one scope): what
// Ambient's logger bindings cost over the hand-written AsyncLocalStorage code that writes the same four ids.
//   winston: format.json() alone; with a hand-written format that reads an AsyncLocalStorage store (twice, in two
//            processes: how far two counts of one variant fall apart); with correlationFormat() and
//            guardWinston(). Budget: at most 1.1x the hand-written line. Beside them, the hand-written code that
//            does what the guard does, takes the store at the log call (the format alone reads it when winston
//            formats the line, another request's whenever a transport has fallen behind).
//   OpenTelemetry logs: an api-logs record through a no-op processor; with a hand-written processor that
//            stamps the store's ids; with correlationLogProcessor(). Budget: at most 1.1x the hand-written record.
//   bunyan: a hand-written raw stream that copies the record with the store's ids; correlationStream().
//            Budget: at most 1.1x the hand-written line.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { budget, fixed, hasCallgrind, instructions, printTable, serveLoop, twoAtATime } from './harness.mjs';

const require = createRequire(import.meta.url);
const file = fileURLToPath(import.meta.url);
const lines = 20_000;
const ids = {
  requestId: '0192f3a0-7c1e-7a31-9b2c-5d6e7f8091a2',
  correlationId: 'chain-0192f3a0',
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7',
};
const parts = {
  winston: ['json', 'hand-written', 'hand-written (A/A)', 'hand-written, at the call', 'ambient'],
  'OpenTelemetry logs': ['no-op', 'hand-written', 'ambient'],
  bunyan: ['hand-written', 'ambient'],
};

const als = new AsyncLocalStorage();

/** A function that logs one line, for `part` as `variant` sets it up. */
async function lineLogger(part, variant) {
  if (part === 'winston') {
    const winston = require('winston');
    const Transport = require('winston-transport');
    const { format } = winston;
    const formats = {
      json: [],
      'hand-written': [],
      'hand-written (A/A)': [],
      'hand-written, at the call': [],
      ambient: [],
    };
    const atTheCall = Symbol('store at the call');
    const storeOf = variant === 'hand-written, at the call' ? (info) => info[atTheCall] : () => als.getStore();
    if (variant === 'hand-written, at the call') {
      const write = winston.Logger.prototype.write;
      winston.Logger.prototype.write = function (info, encoding, callback) {
        Object.defineProperty(info, atTheCall, { value: als.getStore(), configurable: true });
        return write.call(this, info, encoding, callback);
      };
    }
    const handWritten = format((info) => {
      const store = storeOf(info);
      if (store !== undefined) {
        info.requestId = store.requestId;
        info.correlationId = store.correlationId;
        info.traceId = store.traceId;
        info.spanId = store.spanId;
      }
      return info;
    });
    for (const variant of ['hand-written', 'hand-written (A/A)', 'hand-written, at the call'])
      formats[variant].push(handWritten());
    if (variant === 'ambient') {
      const { correlationFormat, guardWinston } = await import('@ambient/winston-context');
      guardWinston({ winston });
      formats.ambient.push(correlationFormat());
    }
    const logger = winston.createLogger({
      format: format.combine(...formats[variant], format.json()),
      transports: [
        new (class Discard extends Transport {
          log(_info, callback) {
            callback();
          }
        })(),
      ],
    });
    return () => logger.info('a line', { n: 1 });
  }
  if (part === 'OpenTelemetry logs') {
    const { LoggerProvider } = require('@opentelemetry/sdk-logs');
    const noop = { onEmit() {}, forceFlush: async () => {}, shutdown: async () => {} };
    const handWritten = {
      onEmit(record) {
        const store = als.getStore();
        if (store === undefined) return;
        if (record.attributes.requestId === undefined) record.setAttribute('requestId', store.requestId);
        if (record.attributes.correlationId === undefined) record.setAttribute('correlationId', store.correlationId);
      },
      forceFlush: async () => {},
      shutdown: async () => {},
    };
    const { correlationLogProcessor } = await import('@ambient/opentelemetry-context');
    const first = { 'no-op': [], 'hand-written': [handWritten], ambient: [correlationLogProcessor()] }[variant];
    const logger = new LoggerProvider({ processors: [...first, noop] }).getLogger('bench');
    return () => logger.emit({ body: 'a line', attributes: { n: 1 } });
  }
  const bunyan = require('bunyan');
  const discard = { write() {} };
  let stream;
  if (variant === 'ambient') {
    const { correlationStream } = await import('@ambient/bunyan-context');
    stream = correlationStream({ stream: discard });
  } else {
    const { Writable } = require('node:stream');
    stream = {
      type: 'raw',
      stream: new Writable({
        objectMode: true,
        write(record, _encoding, callback) {
          const store = als.getStore();
          const line = store === undefined ? record : { ...record, ...store };
          discard.write(`${JSON.stringify(line)}\n`);
          callback();
        },
      }),
    };
  }
  const logger = bunyan.createLogger({ name: 'bench', streams: [stream] });
  return () => logger.info({ n: 1 }, 'a line');
}

/** The child: logs `count` lines each time the parent asks, inside one request's scope. */
export async function loop(part, variant) {
  const log = await lineLogger(part, variant);
  const { requestContext } = await import('@ambient/core');
  const inScope = (work) => (variant === 'ambient' ? requestContext.run({ ...ids }, work) : als.run({ ...ids }, work));
  serveLoop((count) =>
    inScope(() => {
      for (let i = 0; i < count; i++) log();
    }),
  );
}

export async function run() {
  if (!hasCallgrind()) throw new Error('loggers: needs valgrind with callgrind_control');
  const jobs = Object.entries(parts).flatMap(([part, variants]) => variants.map((variant) => [part, variant]));
  const counts = await twoAtATime(jobs, ([part, variant]) =>
    instructions(file, ['loop', part, variant], {
      warmUp: (child) => child.run(30_000),
      count: (child) => child.run(lines),
      units: lines,
    }),
  );
  const of = (part, variant) => counts[jobs.findIndex(([p, v]) => p === part && v === variant)].perUnit;
  for (const [part, variants] of Object.entries(parts)) {
    const handWritten = of(part, 'hand-written');
    printTable(`${part}, Node ${process.version}: a line`, [
      ['', 'instructions', 'over the hand-written'],
      ...variants.map((variant) => [
        variant,
        fixed(of(part, variant)),
        `${(of(part, variant) / handWritten).toFixed(3)}x`,
      ]),
    ]);
    const ratio = of(part, 'ambient') / handWritten;
    // Where an A/A pair was counted: a ratio within how far it fell apart of the bound is not resolved here.
    const spread = variants.includes('hand-written (A/A)')
      ? Math.abs(of(part, 'hand-written (A/A)') / handWritten - 1)
      : 0;
    budget(
      `${part}: Ambient ${ratio.toFixed(3)}x the hand-written line's instructions (<= 1.1x)`,
      ratio <= 1.1,
      Math.abs(ratio - 1.1) < spread && `within the A/A's ${(spread * 100).toFixed(1)}%`,
    );
  }
}

if (process.argv[1] === file && process.argv[2] === 'loop') await loop(process.argv[3], process.argv[4]);
else if (process.argv[1] === file) await run();
