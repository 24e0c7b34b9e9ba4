// Heap bytes allocated per request on the seed route, by framework and variant (the servers of run.mjs).
// Unlike req/s and CPU seconds, this does not move with what the rest of this shared VM is doing: the same
// server gives the same figure to within about 1.5% from one run to the next. It is no budget, only where the
// variants differ in work.
//
// Method: each server runs with `--trace-gc` and a 1 MB young generation, so that a collection happens every
// few dozen requests. After a warm-up, the heap freed by the collections during a fixed number of requests,
// divided by that number, is the garbage each request made (in a steady state, what is freed is what was
// allocated).
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startServer } from '../load.mjs';
import { frameworkVariants, labels, selectedFrameworks } from './variants.mjs';

const serverFile = fileURLToPath(new URL('server.mjs', import.meta.url));
const gcFlags = ['--trace-gc', '--max-semi-space-size=1', '--min-semi-space-size=1'];
const warmUpRequests = 5_000;
const measuredRequests = 30_000;
const burst = { path: '/users/42', connections: 10 };

/** The megabytes freed by the collections `--trace-gc` reported in `text`: each line's "before -> after". */
export function freedMegabytes(text) {
  let freed = 0;
  for (const match of text.matchAll(/ ([\d.]+) \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB/g)) freed += Number(match[1]) - Number(match[2]);
  return freed;
}

async function bytesPerRequest(framework, variant) {
  const server = await startServer(serverFile, [framework, variant], variant, { execArgv: gcFlags, captureOutput: true });
  try {
    await server.burst({ ...burst, amount: warmUpRequests });
    await sleep(200); // lets the warm-up's last trace lines arrive before the mark
    const mark = server.output().length;
    await server.burst({ ...burst, amount: measuredRequests });
    await sleep(200);
    return (freedMegabytes(server.output().slice(mark)) * 1024 * 1024) / measuredRequests;
  } finally {
    server.stop();
  }
}

export async function runAllocations() {
  for (const framework of selectedFrameworks()) {
    const variants = frameworkVariants[framework];
    console.log(`\n${framework}, GET /users/:id, Node ${process.version}: heap bytes allocated per request (${measuredRequests} requests after ${warmUpRequests} of warm-up)`);
    const bytes = {};
    for (const variant of variants) bytes[variant] = await bytesPerRequest(framework, variant);
    const width = Math.max(...variants.map((variant) => labels[variant].length));
    console.log(`${'variant'.padEnd(width)}  ${'bytes/req'.padStart(9)}  ${'vs bare'.padStart(8)}  ${'Ambient minus it'.padStart(16)}`);
    for (const variant of variants) {
      console.log(
        `${labels[variant].padEnd(width)}  ${bytes[variant].toFixed(0).padStart(9)}  ${`${(bytes[variant] / bytes.bare).toFixed(3)}x`.padStart(8)}  ${(bytes.ambient - bytes[variant]).toFixed(0).padStart(16)}`,
      );
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runAllocations();
