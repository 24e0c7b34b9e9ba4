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
const perChain = {
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
/** The steps of a run on host b, in order; a run that stopped (killed, say) logged a prefix of them. */
const runSteps = { consumer: 'message received', worker: 'job received' };
const nextSteps = ['stock queried', 'service answered'];
/** The order an HTTP span names in its path (`/orders/<n>`, `/stock/<n>`), or undefined. */
const spanOrder = (span) =>
  /\/(?:orders|stock)\/(\d+)/.exec(span.attributes['url.path'] ?? span.attributes['url.full'] ?? '')?.[1];

/**
 * Judges the chains of `answers` (the client's results) against everything received so far (`records`,
 * `spans`). Every order number is the run's own (each round's client numbers on from the last), so an item is
 * tied to its chain twice over: by the ids and trace it carries, and by the order it names, which the app
 * wrote and Ambient never touches. Returns the counts and, for a failure message, the first problems found.
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
    if (answer.correlationId !== `${answer.round}-${answer.n}` || !/^[0-9a-f]{32}$/.test(answer.traceId ?? '')) {
      problem(`request ${answer.n} answered ${JSON.stringify(answer)}`);
      continue;
    }
    chains.set(answer.n, { ...answer, records: [], spans: [], runs: new Map() });
  }
  const byCorrelation = new Map([...chains.values()].map((chain) => [chain.correlationId, chain]));
  const byTrace = new Map([...chains.values()].map((chain) => [chain.traceId, chain]));
  const runOwners = new Map();
  let crossed = 0;
  const seen = new Set();
  let duplicates = 0;

  for (const record of records) {
    const { requestId, causationId, correlationId, order } = record.attributes;
    const chain = chains.get(order);
    const claimed = byCorrelation.get(correlationId) ?? byTrace.get(record.traceId);
    if (chain === undefined) {
      // Not one of these orders: it must not carry these chains' ids either.
      if (claimed !== undefined) {
        crossed += 1;
        problem(`${record.service} '${record.body}' of order ${order} carries the ids of ${claimed.correlationId}`);
      }
      continue;
    }
    // A batch the receiver kept but whose answer never reached the exporter (the receiver killed) comes again.
    const key = `${record.pid}/${record.time}/${record.body}/${requestId}/${order}`;
    if (seen.has(key)) {
      duplicates += 1;
      continue;
    }
    seen.add(key);
    chain.records.push(record);
    const wrong = (why) => {
      crossed += 1;
      problem(`${record.service} '${record.body}' of ${chain.correlationId}: ${why}`);
    };
    if (correlationId !== chain.correlationId) wrong(`correlation ${correlationId}`);
    if (record.traceId !== chain.traceId) wrong(`trace ${record.traceId}, not the chain's ${chain.traceId}`);
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
  for (const chain of chains.values()) {
    // Each run logged a prefix of its steps, each once: a step's record under a new id of its own (a callback
    // that lost its run) would make a run of one later step.
    for (const [runId, run] of chain.runs) {
      const steps = [runSteps[run.service.startsWith('worker') ? 'worker' : 'consumer'], ...nextSteps];
      const logged = steps.filter((step) => run.bodies.includes(step));
      if (run.bodies.length !== logged.length || logged.some((step, i) => step !== steps[i])) {
        crossed += 1;
        problem(`run ${runId} of ${chain.correlationId} logged ${JSON.stringify(run.bodies)}`);
      }
    }
    // The service's requests continue the run that called them, once a run: after its query, before its answer.
    const calls = new Map();
    for (const record of chain.records.filter((each) => each.service === 'service')) {
      const caller = chain.runs.get(record.attributes.requestId);
      calls.set(record.attributes.requestId, (calls.get(record.attributes.requestId) ?? 0) + 1);
      if (caller === undefined || !caller.bodies.includes('stock queried')) {
        crossed += 1;
        problem(`service 'stock checked' of ${chain.correlationId}: ${record.attributes.requestId} is no calling run`);
      } else if (calls.get(record.attributes.requestId) > 1) {
        crossed += 1;
        problem(`service 'stock checked' of ${chain.correlationId}: run ${record.attributes.requestId} called twice`);
      }
    }
  }

  let orphans = 0;
  const spanIds = new Set(spans.map((span) => `${span.traceId}/${span.spanId}`));
  for (const span of spans) {
    const chain = byTrace.get(span.traceId);
    const order = spanOrder(span);
    const named = order === undefined ? undefined : chains.get(Number(order));
    if (chain === undefined) {
      // An HTTP span of one of these orders outside its trace.
      if (named !== undefined) {
        crossed += 1;
        problem(`${span.service} span '${span.name}' of ${named.correlationId} is in no chain's trace`);
      }
      continue;
    }
    if (seen.has(`${span.traceId}/${span.spanId}`)) {
      duplicates += 1;
      continue;
    }
    seen.add(`${span.traceId}/${span.spanId}`);
    chain.spans.push(span);
    if (order !== undefined && Number(order) !== chain.n) {
      crossed += 1;
      problem(`${span.service} span '${span.name}' for order ${order} sits in the trace of ${chain.correlationId}`);
    }
    if (span.parentSpanId && !spanIds.has(`${span.traceId}/${span.parentSpanId}`)) {
      orphans += 1;
      problem(`${span.service} span '${span.name}' of ${chain.correlationId}: its parent was not received`);
    }
  }

  let missing = 0;
  let extraRuns = 0;
  let lost = 0;
  for (const chain of chains.values()) {
    const recordGaps = lacking(perChain.records, chain.records, (record) => record.body);
    const spanGaps = lacking(perChain.spans, chain.spans, (span) => span.name);
    const runs = [...chain.runs.values()];
    const completed = (service) =>
      runs.some(
        (run) => (service === 'worker') === run.service.startsWith('worker') && run.bodies.includes('service answered'),
      );
    const absent = [
      ...recordGaps.absent,
      ...spanGaps.absent,
      ...['consumer', 'worker'].filter((service) => !completed(service)).map((service) => `a completed ${service} run`),
    ];
    if (absent.length > 0) {
      missing += 1;
      problem(`${chain.correlationId} lacks ${absent.join(', ')}`);
    }
    lost += recordGaps.lost + spanGaps.lost;
    extraRuns += Math.max(0, runs.filter((run) => run.service === 'consumer').length - 1);
    extraRuns += Math.max(0, runs.filter((run) => run.service !== 'consumer').length - 1);
  }
  const received = [...chains.values()].reduce((sum, chain) => sum + chain.records.length + chain.spans.length, 0);
  return {
    requests: answers.length,
    answered: chains.size,
    expected: chains.size * expectedPerChain,
    received,
    crossed,
    missing,
    orphans,
    extraRuns,
    lost,
    duplicates,
    chains,
    problems,
  };
}
