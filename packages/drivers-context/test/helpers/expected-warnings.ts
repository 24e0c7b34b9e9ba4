// Run before each test file of this package (jest.config.js). Its tests load pg, mysql2 and redis and guard some
// of them only, on purpose: WARN_AMBIENT_DRIVERS_NOT_PASSED is expected there and kept off the console. A real
// process checks that warning itself (test/smoke/not-passed.test.mjs); every other warning passes through.
const emit = process.emitWarning.bind(process) as (...args: unknown[]) => void;

beforeAll(() => {
  jest.spyOn(process, 'emitWarning').mockImplementation((...args: unknown[]) => {
    const options = args[1] as { code?: unknown } | undefined;
    if (typeof options === 'object' && options?.code === 'WARN_AMBIENT_DRIVERS_NOT_PASSED') return;
    emit(...args);
  });
});

afterAll(() => {
  jest.restoreAllMocks();
});
