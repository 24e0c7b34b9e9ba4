// Issue #18's full-stack budgets counted in machine instructions per request, which repeat where req/s does not
// on this VM: Ambient's stack (expressContext, correlationMixin, AmbientContextManager) at least 0.95x the req/s of
// the same pino line and span with no context at all, and at least 1.00x the peer stack's (cls-rtracer, a pino
// mixin, AsyncLocalStorageContextManager), on every Node line. The servers are run.mjs's own (server.mjs); the
// method, and why it is this one: steady-instructions.mjs.
import { fileURLToPath } from 'node:url';
import {
  canCountInstructions,
  printSteadyRow,
  steadyBudget,
  steadyInstructions,
  steadyMethod,
  steadyRatio,
} from '../steady-instructions.mjs';

const serverFile = fileURLToPath(new URL('server.mjs', import.meta.url));
const variants = ['no-context', 'peers', 'ambient'];
const labels = {
  'no-context': 'same line and span, no context',
  peers: 'cls-rtracer + mixin + ALS manager',
  ambient: 'Ambient stack',
};
const ceilingBudget = 0.95;
const peerBudget = 1;

export async function runFullStackInstructions() {
  if (!(await canCountInstructions('full-stack instructions'))) return true;
  console.log(
    `\nFull stack (express 5, request id, one pino line, one span): server instructions per request (callgrind, ` +
      `V8 --predictable), Node ${process.version}: ${steadyMethod}`,
  );
  const figures = await steadyInstructions(serverFile, (variant) => [variant], variants, '/users/42');
  for (const variant of variants) {
    printSteadyRow(labels[variant], figures[variant], figures['no-context'], 'the no-context stack');
  }
  const nearCeiling = steadyBudget(
    "Ambient stack's req/s as instructions allow, over the same stack with no context",
    steadyRatio(figures['no-context'], figures.ambient),
    ceilingBudget,
  );
  const aheadOfPeers = steadyBudget(
    "Ambient stack's req/s as instructions allow, over the peer stack",
    steadyRatio(figures.peers, figures.ambient),
    peerBudget,
  );
  return nearCeiling && aheadOfPeers;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = (await runFullStackInstructions()) ? 0 : 1;
}
