// Starts the API, the orders microservice (NATS) and the invoice worker (BullMQ), each a Nest application in a
// process of its own, places three orders at once (one inside a chain that already has a correlation id), waits
// for the stock reservations and the invoices, then prints the three processes' log lines grouped by correlation
// id: one group per order. The TypeScript is compiled as it loads (@swc-node/register, this folder's tsconfig).
import { fork } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

const reachable = (port) =>
  new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => resolve(socket.destroy() || true));
    socket.once('error', () => resolve(false));
  });
for (const [name, port] of [
  ['NATS', 4222],
  ['Redis', 6379],
]) {
  if (!(await reachable(port))) {
    console.error(`This example needs ${name} on 127.0.0.1:${port}. Start it and rerun.`);
    process.exit(1);
  }
}

const env = {
  ...process.env,
  ORDERS_RUN: `ambient-orders-${process.pid}`,
  SWC_NODE_PROJECT: fileURLToPath(new URL('tsconfig.json', import.meta.url)),
};
const lines = [];
/** One of the three processes; its stdout's JSON lines are kept with the process's name. */
function start(name) {
  const child = fork(fileURLToPath(new URL(`src/${name}.ts`, import.meta.url)), {
    env,
    execArgv: ['--import', '@swc-node/register/esm-register'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  child.once(
    'exit',
    (code) => code !== 0 && (console.error(`the ${name} process exited with ${code}`), process.exit(1)),
  );
  let rest = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop();
    for (const line of parts) if (line.startsWith('{')) lines.push({ process: name, ...JSON.parse(line) });
  });
  return child;
}

const stock = start('service');
const worker = start('worker');
const api = start('api');
const [[{ port }]] = await Promise.all([once(api, 'message'), once(stock, 'message'), once(worker, 'message')]);
let invoiced = 0;
const allInvoiced = new Promise((resolve) =>
  worker.on('message', (m) => m?.completed && ++invoiced === 3 && resolve()),
);

const order = (item, headers = {}) =>
  fetch(`http://127.0.0.1:${port}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ item }),
  });
await Promise.all([order('tea'), order('coffee'), order('cocoa', { 'x-correlation-id': 'campaign-2026-11' })]);
await allInvoiced;
while (lines.filter((line) => / reserved$/.test(line.message)).length < 3) {
  await new Promise((resolve) => setTimeout(resolve, 20));
}
for (const child of [api, stock, worker]) child.send('stop');
await Promise.all([api, stock, worker].map((child) => once(child, 'exit')));

// A request that brought no correlation id starts its chain: what it causes carries its request id as correlation id.
const groups = new Map();
for (const line of lines.filter((each) => each.requestId !== undefined).sort((a, b) => a.timestamp - b.timestamp)) {
  const key = line.correlationId ?? line.requestId;
  groups.set(key, [...(groups.get(key) ?? []), line]);
}
for (const [correlationId, group] of groups) {
  console.log(`\ncorrelationId ${correlationId}`);
  for (const line of group) {
    const run = line.job
      ? `${line.job.name.replace(`${env.ORDERS_RUN}.`, '')} run ${line.requestId.slice(-6)}, caused by ${line.causationId?.slice(-6)}`
      : `request ${line.requestId.slice(-6)}`;
    console.log(`  ${line.process.padEnd(7)} ${run.padEnd(42)} ${line.message}`);
  }
}
