// Run before each test file of this package (jest.config.js), and imported by the tests that expect a warning.
// Two warnings are expected here and kept off the console; every other warning passes through:
// - WARN_AMBIENT_DRIVERS_NOT_PASSED: tests load pg, mysql2 and redis and guard some of them only, on purpose. A
//   real process checks that warning itself (test/smoke/not-passed.test.mjs).
// - pg 8's DeprecationWarning for a query queued on a busy client, which some tests do on purpose: pg keeps the
//   queue until pg 9, and the guard must keep such queued callbacks in their requests. pg warns through
//   `util.deprecate`, on Node's own `process`; jest's sandboxed `process` is a copy, so the warning is caught on
//   the object `vm.runInThisContext` reaches, the process outside the sandbox.
import vm from 'node:vm';

const kept = { driversNotPassed: 0, pgQueryQueued: 0 };

/** How many of each expected warning this test file has kept off the console so far. */
export const keptWarnings: Readonly<typeof kept> = kept;

type EmitWarning = (...args: unknown[]) => void;

/** The expected warning `args` is (a call of `process.emitWarning`), or undefined for any other. */
function expected(args: unknown[]): keyof typeof kept | undefined {
  const [warning, options] = args;
  if (
    typeof options === 'object' &&
    (options as { code?: unknown } | null)?.code === 'WARN_AMBIENT_DRIVERS_NOT_PASSED'
  ) {
    return 'driversNotPassed';
  }
  const message = warning instanceof Error ? warning.message : warning;
  if (
    typeof message === 'string' &&
    message.startsWith('Calling client.query() when the client is already executing')
  ) {
    return 'pgQueryQueued';
  }
  return undefined;
}

const nodeProcess = vm.runInThisContext('process') as NodeJS.Process;
const emitters = [process, nodeProcess].map((owner) => ({ owner, emit: owner.emitWarning }));

beforeAll(() => {
  for (const { owner, emit } of emitters) {
    owner.emitWarning = (...args: unknown[]) => {
      const which = expected(args);
      if (which === undefined) (emit as EmitWarning).apply(owner, args);
      else kept[which]++;
    };
  }
});

afterAll(() => {
  for (const { owner, emit } of emitters) owner.emitWarning = emit;
});
