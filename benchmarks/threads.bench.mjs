// What Ambient costs a task sent to a worker thread, in process: the sender's side in a request's scope, the
// message as a structured clone (what postMessage does to it), and the thread's side, an async handler that
// reads its request id after an await. Three variants: none (the task alone), the hand-written carrier (one
// object in the message with the request's ids, one AsyncLocalStorage#run in the thread with a new id, the
// sender as causation, its correlation id) and Ambient's (contextTask, taskHandler). The budget, on Node 24 (22
// and 26 printed): Ambient at most 1.5 µs a task over the hand-written carrier. Two measures: CPU ns a task over
// 20,000 tasks, the variants alternating in 5 rounds in each of 3 fresh processes (the paired per-round
// differences, the order rotating, a second `none` as the A/A control); and, since those spread too widely on
// this VM to decide (structuredClone's garbage), instructions a task under callgrind, each variant in a process
// of its own, made ns at the ns an instruction the CPU measure gives for the hand-written variant. The budget is
// decided by the instructions.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { als } from './hand-written.mjs';
import {
  budget,
  cpuRounds,
  fixed,
  hasCallgrind,
  instructions,
  median,
  printTable,
  reportMessageCosts,
  serveLoop,
  twoAtATime,
} from './harness.mjs';

const tasks = 20_000;
const rounds = 5;
const processes = 3;
const request = { requestId: 'req-bench', correlationId: 'chain-bench' };
const task = { template: 'invoice', data: { order: 42, lines: [1, 2, 3] } };

/** Each variant's task: what the sender does in a request's scope, the clone, what the thread does. */
async function variants() {
  const { requestContext } = await import('@ambient/core');
  const { contextTask, taskHandler } = await import('@ambient/threads-context');
  let sink = 0;
  const work = async (given, read) => {
    await null;
    sink += given.data.order + read().length;
  };
  const handWrittenThread = (message) =>
    als.run(
      { requestId: randomUUID(), causationId: message.ids.requestId, correlationId: message.ids.correlationId },
      work,
      message.task,
      () => als.getStore().requestId,
    );
  const ambientThread = taskHandler((given) => work(given, () => requestContext.get('requestId')));
  const send = {
    none: () => work(structuredClone(task), () => ''),
    'hand-written': () =>
      als.run(request, () => {
        const { requestId, correlationId } = als.getStore();
        return handWrittenThread(structuredClone({ task, ids: { requestId, correlationId } }));
      }),
    ambient: () => requestContext.run(request, () => ambientThread(structuredClone(contextTask(task)))),
  };
  send['none (A/A)'] = send.none;
  return { send, sink: () => sink };
}

/** The child: every variant's ns a task, round by round. */
async function measure() {
  const { send, sink } = await variants();
  const ns = await cpuRounds(send, { count: tasks, rounds });
  process.stdout.write(JSON.stringify({ ns, sink: sink() > 0 }));
  process.exit(0);
}

/** The child under callgrind: `count` tasks of one variant each time the parent asks. */
async function loop(variant) {
  const { send } = await variants();
  const one = send[variant];
  serveLoop(async (count) => {
    for (let i = 0; i < count; i++) await one();
  });
}

const counted = 5_000;

export async function run() {
  const file = fileURLToPath(import.meta.url);
  const children = reportMessageCosts(file, 'threads', {
    title: 'worker thread tasks in process',
    processes,
    rounds,
    limitNs: 1500,
    decided: false,
  });
  if (!hasCallgrind()) throw new Error('threads: needs valgrind with callgrind_control');
  const names = ['none', 'hand-written', 'ambient', 'none (A/A)'];
  const counts = await twoAtATime(names, (variant) =>
    instructions(file, ['loop', variant], {
      warmUp: (loopChild) => loopChild.run(20_000),
      count: (loopChild) => loopChild.run(counted),
      units: counted,
    }),
  );
  const of = (variant) => counts[names.indexOf(variant)].perUnit;
  const nsPerInstruction = median(children.flatMap((child) => child.ns['hand-written'])) / of('hand-written');
  const over = (variant) => (of(variant) - of('hand-written')) * nsPerInstruction;
  printTable(`worker thread tasks, Node ${process.version}: instructions a task under callgrind`, [
    ['', 'instructions', 'over none', 'as ns'],
    ...names.map((variant) => [
      variant,
      fixed(of(variant)),
      fixed(of(variant) - of('none')),
      fixed((of(variant) - of('none')) * nsPerInstruction),
    ]),
  ]);
  console.log(
    `  at ${nsPerInstruction.toFixed(3)} ns an instruction (the hand-written variant's CPU ns / instructions)`,
  );
  const text = `threads: Ambient ${fixed(over('ambient'))} ns a task over the hand-written carrier, by instructions (${fixed(of('ambient') - of('hand-written'))}; <= 1,500 ns)`;
  if (process.version.startsWith('v24.')) budget(text, over('ambient') <= 1500);
  else console.log(`  (the budget is Node 24's) ${text}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'measure') await measure();
else if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'loop') await loop(process.argv[3]);
else if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
