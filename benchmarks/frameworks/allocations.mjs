// Heap bytes allocated per request on the seed route, by framework and variant (the servers of run.mjs).
// Unlike req/s and CPU seconds, this does not move with what the rest of this shared VM is doing: koa and
// fastify give the same figure to within about 1.5% from one run to the next, express within 3% (on Node 20 it
// promotes about 9 KB of every request to the old generation, whose sweeping blurs the count). Budget (issue
// #18): Ambient allocates at most 300 bytes a request more than the hand-written AsyncLocalStorage middleware.
//
// Method: each server runs with `--trace-gc-nvp` and a 4 MB semi-space, so that a collection happens every
// hundred or so requests. Each collection reports the bytes allocated since the one before (`allocated=`);
// after a warm-up, their sum over a fixed number of requests, divided by that number, is what each request
// allocated. (Summing the heap each collection freed instead, as this script first did, misses what survives a
// scavenge: code that kept an object alive a little longer looked as if it allocated less.)
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { verdict } from '../harness.mjs';
import { startServer } from '../load.mjs';
import { frameworkVariants, labels, selectedFrameworks } from './variants.mjs';

const serverFile = fileURLToPath(new URL('server.mjs', import.meta.url));
const gcFlags = ['--trace-gc-nvp', '--max-semi-space-size=4', '--min-semi-space-size=4'];
const warmUpRequests = 5_000;
const measuredRequests = 60_000;
const burst = { path: '/users/42', connections: 10 };

/**
 * The bytes allocated between the collections `--trace-gc-nvp` reported in `text`: each line's `allocated=`, or
 * from Node 26 (V8 14) each JSON line's `"allocated":`.
 */
export function allocatedBytes(text) {
  let allocated = 0;
  for (const match of text.matchAll(/ allocated=(\d+) |"allocated":(\d+)/g)) allocated += Number(match[1] ?? match[2]);
  return allocated;
}

async function bytesPerRequest(framework, variant) {
  const server = await startServer(serverFile, [framework, variant], variant, {
    execArgv: gcFlags,
    captureOutput: true,
  });
  try {
    await server.burst({ ...burst, amount: warmUpRequests });
    await sleep(200); // lets the warm-up's last trace lines arrive before the mark
    const mark = server.output().length;
    await server.burst({ ...burst, amount: measuredRequests });
    await sleep(200);
    return allocatedBytes(server.output().slice(mark)) / measuredRequests;
  } finally {
    server.stop();
  }
}

const bytesBudget = 300;

export async function runAllocations() {
  let withinBudget = true;
  for (const framework of selectedFrameworks()) {
    const variants = frameworkVariants[framework];
    console.log(
      `\n${framework}, GET /users/:id, Node ${process.version}: heap bytes allocated per request (${measuredRequests} requests after ${warmUpRequests} of warm-up)`,
    );
    const bytes = {};
    for (const variant of variants) bytes[variant] = await bytesPerRequest(framework, variant);
    const width = Math.max(...variants.map((variant) => labels[variant].length));
    console.log(
      `${'variant'.padEnd(width)}  ${'bytes/req'.padStart(9)}  ${'vs bare'.padStart(8)}  ${'Ambient minus it'.padStart(16)}`,
    );
    for (const variant of variants) {
      console.log(
        `${labels[variant].padEnd(width)}  ${bytes[variant].toFixed(0).padStart(9)}  ${`${(bytes[variant] / bytes.bare).toFixed(3)}x`.padStart(8)}  ${(bytes.ambient - bytes[variant]).toFixed(0).padStart(16)}`,
      );
    }
    const excess = bytes.ambient - bytes.als;
    const ok = excess <= bytesBudget;
    verdict(
      `budget check: ${framework}, Ambient minus the hand-written middleware ${excess.toFixed(0)} bytes a request: ` +
        `${ok ? 'ok' : 'OVER BUDGET'} (needs <= ${bytesBudget})`,
    );
    // Not a budget: what Ambient allocates beyond a hand-written middleware that does its default work too.
    console.log(
      `  Ambient minus the hand-written middleware that echoes the id: ${(bytes.ambient - bytes['als-echo']).toFixed(0)} ` +
        `bytes a request; the echo itself (res.setHeader, and Node writing one more header line): ` +
        `${(bytes['als-echo'] - bytes.als).toFixed(0)}`,
    );
    withinBudget &&= ok;
  }
  return withinBudget;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!(await runAllocations())) process.exitCode = 1;
}
