// The production stack on express 5 (a request id, one pino line with the ids, one span through the real
// OpenTelemetry SDK): Ambient's (expressContext, correlationMixin, AmbientContextManager) against the peer stack
// people build today (cls-rtracer, a pino mixin reading it, AsyncLocalStorageContextManager). The budget keeps
// Ambient's stack cheaper than the peers' on every Node line, in instructions a request; the same line and span
// with no context at all are printed beside it: the ceiling of any context library, no budget.
// Each server in a process of its own under callgrind (apps.mjs's serverInstructions; one process a variant).
import { fileURLToPath } from 'node:url';
import { serverInstructions } from './apps.mjs';
import { budget, fixed, hasCallgrind, printTable, twoAtATime } from './harness.mjs';

const variants = ['no-context', 'peers', 'ambient'];

export async function run() {
  if (!hasCallgrind()) throw new Error('full-stack: needs valgrind with callgrind_control');
  const counts = Object.fromEntries(
    (await twoAtATime(variants, (variant) => serverInstructions('full-stack', variant))).map((count, i) => [
      variants[i],
      count,
    ]),
  );
  const peers = counts.peers.perUnit;
  printTable(`full stack (express 5, request id, pino line, span), Node ${process.version}: a request`, [
    ['', 'instructions', 'over the peers', 'compiling (left out)'],
    ...variants.map((variant) => {
      const { perUnit, compiling } = counts[variant];
      return [variant, fixed(perUnit), `${(perUnit / peers).toFixed(3)}x`, fixed(compiling)];
    }),
  ]);
  const ratio = counts.ambient.perUnit / peers;
  budget(
    `full stack: Ambient ${ratio.toFixed(3)}x the peer stack's instructions a request (< 1x)`,
    ratio < 1,
    Math.abs(ratio - 1) < 0.004 && 'within 0.004 of the budget',
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
