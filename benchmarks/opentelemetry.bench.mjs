// A listener bound by AmbientContextManager against one bound by OpenTelemetry's AsyncLocalStorageContextManager.
// http instrumentation binds every server request and response (`manager.bind(context, emitter)`), so each
// listener a framework or body parser adds to them later (`data`, `end`, `finish`) runs through the manager's
// wrapper on every event, which arrives from outside any scope. The budget keeps Ambient's manager at most the
// peer's instructions an event. Each manager in a process of its own under callgrind: 100,000 events after
// 50,000 uninstrumented; one process each, as a count repeats within 0.2%.
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { budget, fixed, hasCallgrind, instructions, printTable, serveLoop, twoAtATime } from './harness.mjs';

const file = fileURLToPath(import.meta.url);
const events = 100_000;

/** The child: an emitter bound outside any request, a listener added inside one, emitted `count` times. */
async function loop(manager) {
  const require = createRequire(import.meta.url);
  const api = require('@opentelemetry/api');
  const { requestContext } = await import('@ambient/core');
  const contextManager =
    manager === 'peer'
      ? new (require('@opentelemetry/context-async-hooks').AsyncLocalStorageContextManager)()
      : new (await import('@ambient/opentelemetry-context')).AmbientContextManager();
  contextManager.enable();
  const context = api.ROOT_CONTEXT.setValue(api.createContextKey('benchmark'), 1);
  const emitter = contextManager.bind(context, new EventEmitter());
  let sink = 0;
  requestContext.run({ requestId: 'r' }, () => emitter.on('data', (n) => (sink += n)));
  serveLoop((count) => {
    for (let i = 0; i < count; i++) emitter.emit('data', 1);
    return sink;
  });
}

export async function run() {
  if (!hasCallgrind()) throw new Error('opentelemetry: needs valgrind with callgrind_control');
  const managers = ['peer', 'ambient'];
  const [peer, ambient] = await twoAtATime(managers, (manager) =>
    instructions(file, ['loop', manager], {
      warmUp: (child) => child.run(50_000),
      count: (child) => child.run(events),
      units: events,
    }),
  );
  printTable(`a bound listener, emitted from outside any scope, Node ${process.version}: an event`, [
    ['', 'instructions', 'compiling (left out)'],
    ['AsyncLocalStorageContextManager', fixed(peer.perUnit), fixed(peer.compiling, 1)],
    ['AmbientContextManager', fixed(ambient.perUnit), fixed(ambient.compiling, 1)],
  ]);
  const ratio = ambient.perUnit / peer.perUnit;
  budget(
    `opentelemetry: a bound listener's event ${ratio.toFixed(3)}x the peer manager's instructions (<= 1x)`,
    ratio <= 1,
    Math.abs(ratio - 1) < 0.004 && 'within 0.004 of the budget',
  );
}

if (process.argv[1] === file && process.argv[2] === 'loop') await loop(process.argv[3]);
else if (process.argv[1] === file) await run();
