// Reading what reached the Collector stand-in, chain by chain. A chain is one client request: the gateway's
// request on host a, the NATS consumer's run and the BullMQ job's run on host b (more than one where a message
// came again or a job was retried), and the service's requests on host c. Every log record of a chain must carry
// its correlationId and its trace; the gateway's its request id; a run's a request id of its own and the gateway's
// as causation; the service's the request id of the run that called it. Every span must sit in a chain's trace
// under a parent that was received.
import { closeSync, openSync, readSync, statSync } from 'node:fs';

/**
 * What one complete chain sends, by hop (the two workers are one hop): log records and spans, by body and name.
 * Spans beyond these (pg opening a connection) are received but not counted on.
 */
export const perChain = {
  records: {
    gateway: { 'order received': 1, 'order queued': 1 },
    consumer: { 'message received': 1, 'stock queried': 1, 'service answered': 1 },
    worker: { 'job received': 1, 'stock queried': 1, 'service answered': 1 },
    service: { 'stock checked': 2 },
  },
  spans: {
    gateway: { POST: 1, 'add orders.charge': 1 },
    consumer: { 'orders.created process': 1, 'pg-pool.connect': 1, 'pg.query:SELECT postgres': 1, GET: 1 },
    worker: { 'process orders': 1, 'complete orders': 1, 'pg-pool.connect': 1, 'pg.query:SELECT postgres': 1, GET: 1 },
    service: { GET: 2 },
  },
};
const hopOf = (service) => (service.startsWith('worker') ? 'worker' : service);
const expectedPerChain = [perChain.records, perChain.spans]
  .flatMap((byHop) => Object.values(byHop).flatMap((counts) => Object.values(counts)))
  .reduce((sum, count) => sum + count, 0);

/** The items of `expected` (hop -> name -> count) that `items` lack, by `name(item)`. */
function lacking(expected, items, name) {
  let lost = 0;
  const absent = [];
  for (const [hop, counts] of Object.entries(expected)) {
    for (const [what, count] of Object.entries(counts)) {
      const got = items.filter((item) => hopOf(item.service) === hop && name(item) === what).length;
      if (got < count) {
        lost += count - got;
        absent.push(`${hop} '${what}'`);
      }
    }
  }
  return { lost, absent };
}

/** The receiver's file, read as it grows: `read()` returns the items appended since the last call. */
export function receivedFile(path) {
  let offset = 0;
  let rest = '';
  return {
    read() {
      let size;
      try {
        size = statSync(path).size;
      } catch {
        return [];
      }
      if (size <= offset) return [];
      const buffer = Buffer.alloc(size - offset);
      const fd = openSync(path, 'r');
      try {
        readSync(fd, buffer, 0, buffer.length, offset);
      } finally {
        closeSync(fd);
      }
      offset = size;
      const lines = (rest + buffer.toString('utf8')).split('\n');
      rest = lines.pop();
      return lines.map((line) => JSON.parse(line));
    },
  };
}

/** The milliseconds a UUIDv7 carries, or undefined for any other id. */
export function uuidv7Time(id) {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-7/.test(id ?? '')) return undefined;
  return Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);
}

const isRun = (service) => service === 'consumer' || service.startsWith('worker');

/**
 * Judges the chains of `answers` (the client's results) against everything received so far (`records`,
 * `spans`). Returns the round's counts and, for a failure message, the first problems found.
 */
export function judgeChains(answers, { records, spans }) {
  const problems = [];
  const problem = (text) => problems.length < 20 && problems.push(text);
  const chains = new Map();
  for (const answer of answers) {
    if (answer.status !== 200) {
      problem(`request ${answer.n} failed: ${answer.status ?? answer.failure}`);
      continue;
    }
    chains.set(answer.correlationId, { ...answer, records: [], spans: [], runs: new Map() });
  }
  const byTrace = new Map([...chains.values()].map((chain) => [chain.traceId, chain]));
  const runOwners = new Map();
  let crossed = 0;

  const seen = new Set();
  let duplicates = 0;
  for (const record of records) {
    const chain = chains.get(record.attributes.correlationId);
    if (chain === undefined) continue;
    // A batch the receiver kept but whose answer never reached the exporter (the receiver killed) comes again.
    const key = `${record.pid}/${record.time}/${record.body}/${record.attributes.requestId}/${record.attributes.order}`;
    if (seen.has(key)) {
      duplicates += 1;
      continue;
    }
    seen.add(key);
    chain.records.push(record);
    const { requestId, causationId } = record.attributes;
    const wrong = (why) => {
      crossed += 1;
      problem(`${record.service} '${record.body}' of ${chain.correlationId}: ${why}`);
    };
    if (record.traceId !== chain.traceId) wrong(`trace ${record.traceId}, not the chain's ${chain.traceId}`);
    if (record.attributes.order !== chain.n) wrong(`order ${record.attributes.order}, not ${chain.n}`);
    if (record.service === 'gateway') {
      if (requestId !== chain.requestId) wrong(`request ${requestId}, not the gateway's ${chain.requestId}`);
    } else if (isRun(record.service)) {
      if (causationId !== chain.requestId) wrong(`causation ${causationId}, not the gateway's ${chain.requestId}`);
      if (requestId === chain.requestId || requestId === undefined) wrong('no request id of its own');
      const owner = runOwners.get(requestId);
      if (owner !== undefined && owner !== chain) wrong(`request ${requestId} is a run of ${owner.correlationId}`);
      runOwners.set(requestId, chain);
      const run = chain.runs.get(requestId) ?? { service: record.service, pid: record.pid, bodies: [] };
      if (run.service !== record.service) wrong(`run ${requestId} logged from ${run.service} too`);
      run.bodies.push(record.body);
      chain.runs.set(requestId, run);
    }
  }
  // The service's requests continue the run that called them.
  for (const chain of chains.values()) {
    for (const record of chain.records.filter((each) => each.service === 'service')) {
      if (!chain.runs.has(record.attributes.requestId)) {
        crossed += 1;
        problem(
          `service 'stock checked' of ${chain.correlationId}: request ${record.attributes.requestId} is no run of it`,
        );
      }
    }
  }
  // Records that carry no chain at all: nothing here logs outside a request or a run.
  const stray = records.filter((record) => record.attributes.correlationId === undefined).length;

  let orphans = 0;
  const spanIds = new Set(spans.map((span) => `${span.traceId}/${span.spanId}`));
  for (const span of spans) {
    const chain = byTrace.get(span.traceId);
    if (chain === undefined) continue;
    if (seen.has(`${span.traceId}/${span.spanId}`)) {
      duplicates += 1;
      continue;
    }
    seen.add(`${span.traceId}/${span.spanId}`);
    chain.spans.push(span);
    if (span.parentSpanId && !spanIds.has(`${span.traceId}/${span.parentSpanId}`)) {
      orphans += 1;
      problem(`${span.service} span '${span.name}' of ${chain.correlationId}: its parent was not received`);
    }
  }

  let missing = 0;
  let extraRuns = 0;
  let lost = 0;
  for (const chain of chains.values()) {
    const records = lacking(perChain.records, chain.records, (record) => record.body);
    const spanned = lacking(perChain.spans, chain.spans, (span) => span.name);
    const absent = [...records.absent, ...spanned.absent];
    if (absent.length > 0) {
      missing += 1;
      problem(`${chain.correlationId} lacks ${absent.join(', ')}`);
    }
    lost += records.lost + spanned.lost;
    const runs = [...chain.runs.values()];
    extraRuns += Math.max(0, runs.filter((run) => run.service === 'consumer').length - 1);
    extraRuns += Math.max(0, runs.filter((run) => run.service !== 'consumer').length - 1);
  }
  const received = [...chains.values()].reduce((sum, chain) => sum + chain.records.length + chain.spans.length, 0);
  const expected = chains.size * expectedPerChain;
  return {
    requests: answers.length,
    answered: chains.size,
    expected,
    received,
    crossed: crossed + stray,
    missing,
    orphans,
    extraRuns,
    lost,
    duplicates,
    chains,
    problems,
  };
}
