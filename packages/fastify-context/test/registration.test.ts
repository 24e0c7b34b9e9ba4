// What the plugin says at registration: a warning, once, for each fastify option under which fastify makes
// ids Ambient's rules did not choose (none for the recommended setup), and errors for bad options.
import fastify from 'fastify';
import type * as plugin from '@ambient/fastify-context';
import { fastifyContext, requestContext } from '@ambient/fastify-context';
import { get, startApp, uuidv7Pattern, versions, type AppSpec } from './harness.js';

/**
 * A separately evaluated copy of the package, whose once-per-process warnings have not fired yet (each
 * test starts from a new one).
 */
function freshPlugin(): typeof fastifyContext {
  let copy: typeof plugin | undefined;
  jest.isolateModules(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a copy whose once-per-process state is new
    copy = require('../src/index') as typeof plugin;
  });
  if (copy === undefined || copy.fastifyContext === fastifyContext) throw new Error('no second copy');
  return copy.fastifyContext;
}

let emitWarning: jest.SpyInstance;
beforeEach(() => {
  emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
});
afterEach(() => emitWarning.mockRestore());

/** The codes of the AmbientWarnings emitted so far. */
function ambientWarnings(): string[] {
  return emitWarning.mock.calls
    .map((call: unknown[]) => call[1] as { type?: string; code?: string } | undefined)
    .filter((options) => options?.type === 'AmbientWarning')
    .map((options) => String(options?.code));
}

describe.each(versions)('$name', (version) => {
  const cases: ReadonlyArray<[string, Omit<AppSpec, 'version'>, string[]]> = [
    ['the recommended setup', { fastifyOptions: version.noHeader }, []],
    ['the recommended setup without a logger', { fastifyOptions: version.noHeader, logger: false }, []],
    [
      "fastify's requestIdHeader",
      { fastifyOptions: { requestIdHeader: 'x-request-id' } },
      ['WARN_AMBIENT_FASTIFY_REQUEST_ID_HEADER'],
    ],
    [
      'useFastifyRequestId',
      { fastifyOptions: version.noHeader, pluginOptions: { useFastifyRequestId: true } },
      ['WARN_AMBIENT_FASTIFY_USER_GEN_REQ_ID'],
    ],
    [
      "useFastifyRequestId with fastify's requestIdHeader",
      { fastifyOptions: { requestIdHeader: 'x-request-id' }, pluginOptions: { useFastifyRequestId: true } },
      ['WARN_AMBIENT_FASTIFY_REQUEST_ID_HEADER', 'WARN_AMBIENT_FASTIFY_USER_GEN_REQ_ID'],
    ],
    [
      "fastify's genReqId, which the plugin replaces",
      { fastifyOptions: { ...version.noHeader, genReqId: () => 'mine' } },
      ['WARN_AMBIENT_FASTIFY_GEN_REQ_ID_REPLACED'],
    ],
  ];

  it.each(cases)(
    '%s: warns at registration with %j, once, however many apps and requests',
    async (_name, spec, codes) => {
      const freshContext = freshPlugin();
      const first = await startApp({ version, ...spec, plugin: freshContext });
      expect(ambientWarnings()).toEqual(codes);
      const second = await startApp({ version, ...spec, plugin: freshContext });
      await Promise.all([first, second, first].map((app) => get(app.port)));
      await Promise.all([first.close(), second.close()]);
      expect(ambientWarnings()).toEqual(codes);
    },
  );

  it("fastify 4's default requestIdHeader (request-id) warns; requestIdHeader: false does not", async () => {
    const freshContext = freshPlugin();
    await version.create().register(freshContext).ready();
    const expected = version.name === 'fastify 4' ? ['WARN_AMBIENT_FASTIFY_REQUEST_ID_HEADER'] : [];
    expect(ambientWarnings()).toEqual(expected);
  });

  it('a genReqId the plugin replaced is not called; request.id is Ambient', async () => {
    const genReqId = jest.fn(() => 'mine');
    const app = await startApp({ version, fastifyOptions: { ...version.noHeader, genReqId } });
    const response = await get(app.port).finally(() => app.close());
    expect(response.echoed).toMatch(uuidv7Pattern);
    expect(response.body.fastifyId).toBe(response.echoed);
    expect(genReqId).not.toHaveBeenCalled();
  });

  it("useFastifyRequestId keeps the user's genReqId and its valid ids, on every line", async () => {
    let counter = 0;
    const app = await startApp({
      version,
      fastifyOptions: { ...version.noHeader, genReqId: () => `fastify-${++counter}` },
      pluginOptions: { useFastifyRequestId: true },
    });
    const response = await get(app.port).finally(() => app.close());
    expect(response.echoed).toBe('fastify-1');
    expect(response.body).toEqual({ requestId: 'fastify-1', fastifyId: 'fastify-1' });
    const lines = app.lines.filter((line) => line.reqId !== undefined);
    expect(lines).toHaveLength(3);
    for (const line of lines) expect([line.reqId, line.requestId]).toEqual(['fastify-1', 'fastify-1']);
  });

  it('a generateRequestId or validateRequestId that throws gives a UUIDv7, one warning, and no crash', async () => {
    const throwing = () => {
      throw new TypeError('no id today');
    };
    const freshContext = freshPlugin();
    const setups: Array<[Omit<AppSpec, 'version'>, string[]]> = [
      // Ambient's genReqId, before any hook, with no id coming in.
      [{ pluginOptions: { generateRequestId: throwing } }, []],
      // The check of an id fastify made: in the child logger factory, and without a logger in the hook.
      [
        { fastifyOptions: { requestIdHeader: 'x-request-id' }, pluginOptions: { validateRequestId: throwing } },
        ['x-request-id', 'given-1'],
      ],
      [
        {
          logger: false,
          fastifyOptions: { requestIdHeader: 'x-request-id' },
          pluginOptions: { validateRequestId: throwing },
        },
        ['x-request-id', 'given-1'],
      ],
      // Kept fastify ids (useFastifyRequestId) are checked rather than chosen again: the same, with and without
      // a logger.
      [
        {
          fastifyOptions: { requestIdHeader: 'x-request-id' },
          pluginOptions: { useFastifyRequestId: true, validateRequestId: throwing },
        },
        ['x-request-id', 'given-1'],
      ],
      [
        {
          logger: false,
          fastifyOptions: { requestIdHeader: 'x-request-id' },
          pluginOptions: { useFastifyRequestId: true, validateRequestId: throwing },
        },
        ['x-request-id', 'given-1'],
      ],
    ];
    for (const [spec, headers] of setups) {
      const app = await startApp({ version, plugin: freshContext, ...spec });
      const response = await get(app.port, headers).finally(() => app.close());
      expect(response.status).toBe(200);
      expect(response.echoed).toMatch(uuidv7Pattern);
      expect(response.body).toEqual({ requestId: response.echoed, fastifyId: response.echoed });
    }
    expect(ambientWarnings().filter((code) => code === 'WARN_AMBIENT_FASTIFY_REQUEST_ID_FAILED')).toHaveLength(1);
  });

  it('a generator that throws something other than an Error is reported the same way', async () => {
    const app = await startApp({
      version,
      plugin: freshPlugin(),
      fastifyOptions: version.noHeader,
      pluginOptions: {
        generateRequestId: () => {
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- what a careless generator might throw
          throw 'no id today';
        },
      },
    });
    const response = await get(app.port).finally(() => app.close());
    expect(response.echoed).toMatch(uuidv7Pattern);
    expect(ambientWarnings()).toEqual(['WARN_AMBIENT_FASTIFY_REQUEST_ID_FAILED']);
  });

  it("fastify's own requestIdHeader never bypasses the plugin's rule: requestIdHeader: false stays false", async () => {
    // fastify 4 reads "request-id" by default, before any genReqId; fastify 5 only when told to.
    const app = await startApp({
      version,
      fastifyOptions: { requestIdHeader: 'request-id' },
      pluginOptions: { requestIdHeader: false },
    });
    const response = await get(app.port, ['request-id', 'attacker-chosen', 'x-request-id', 'valid-2']).finally(() =>
      app.close(),
    );
    expect(response.echoed).toMatch(uuidv7Pattern);
    expect(response.body).toEqual({ requestId: response.echoed, fastifyId: response.echoed });
    expect(app.text.join('\n')).not.toContain('attacker-chosen');
  });

  it("fastify's own requestIdHeader gives way to the plugin's header and rule", async () => {
    const app = await startApp({ version, fastifyOptions: { requestIdHeader: 'request-id' } });
    const response = await get(app.port, ['request-id', 'from-fastify-header', 'x-request-id', 'ours-1']).finally(() =>
      app.close(),
    );
    expect(response.echoed).toBe('ours-1');
    expect(response.body).toEqual({ requestId: 'ours-1', fastifyId: 'ours-1' });
    for (const line of app.lines) if ('reqId' in line) expect(line.reqId).toBe('ours-1');
  });

  it('a server started inside some scope still logs each request under its own id', async () => {
    const app = await requestContext.run({ requestId: 'boot-scope' }, () =>
      startApp({ version, fastifyOptions: version.noHeader }),
    );
    const response = await get(app.port, ['x-request-id', 'inner-1']).finally(() => app.close());
    expect(response.echoed).toBe('inner-1');
    const requestLines = app.lines.filter((line) => 'reqId' in line);
    expect(requestLines.length).toBeGreaterThanOrEqual(2);
    for (const line of requestLines) expect([line.reqId, line.requestId]).toEqual(['inner-1', 'inner-1']);
  });

  it('requestIdHeader: false never reads an incoming id', async () => {
    const app = await startApp({
      version,
      fastifyOptions: version.noHeader,
      pluginOptions: { requestIdHeader: false },
    });
    const response = await get(app.port, ['x-request-id', 'valid-1']).finally(() => app.close());
    expect(response.echoed).toMatch(uuidv7Pattern);
    expect(response.body.fastifyId).toBe(response.echoed);
  });
});

it('rejects bad options with a typed error when the plugin is registered', async () => {
  await expect(
    fastify()
      .register(fastifyContext, { useFastifyRequestId: 'yes' as never })
      .ready(),
  ).rejects.toMatchObject({ code: 'ERR_AMBIENT_FASTIFY_INVALID_OPTION' });
  await expect(
    fastify()
      .register(fastifyContext, { requestIdHeader: 42 as never })
      .ready(),
  ).rejects.toMatchObject({ code: 'ERR_AMBIENT_HTTP_INVALID_OPTION' });
});
