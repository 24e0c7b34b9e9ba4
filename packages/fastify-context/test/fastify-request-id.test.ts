// Request ids on fastify 4 and 5 with fastify's own pino logger and correlationMixin(): one id on every line of
// a request, and never an id that failed validation, in whatever mode fastify and the plugin are set up.
import type { FastifyInstance } from 'fastify';
import { answerIds, get, startApp, uuidv7Pattern, versions, type AppSpec, type FastifyVersion } from './harness.js';

const invalidIds: ReadonlyArray<[string, string[], string[]]> = [
  // [what, headers sent (name filled in per mode), strings that must appear nowhere]
  ['quotes, a space and markup', ['a"b c<script>'], ['<script>', 'a\\"b c']],
  ['a semicolon', ['semi;colon'], ['semi;colon']],
  ['129 characters', ['x'.repeat(129)], ['x'.repeat(129)]],
  ['the header sent twice', ['dup-one', 'dup-two'], ['dup-one', 'dup-two']],
];

interface Mode {
  readonly name: string;
  readonly spec: (version: FastifyVersion) => AppSpec;
  /** The header the client sends its id in (default x-request-id). */
  readonly header?: string;
  readonly path?: string;
}

/** Every way fastify and the plugin can be set up to make ids, the unsafe ones included. */
const modes: readonly Mode[] = [
  { name: 'the recommended setup', spec: (version) => ({ version, fastifyOptions: version.noHeader }) },
  {
    name: "fastify's requestIdHeader: 'x-request-id'",
    spec: (version) => ({ version, fastifyOptions: { requestIdHeader: 'x-request-id' } }),
  },
  {
    name: "fastify's default headers (fastify 4 reads request-id)",
    spec: (version) => ({ version }),
    header: 'request-id',
  },
  {
    name: "useFastifyRequestId with fastify's requestIdHeader",
    spec: (version) => ({
      version,
      fastifyOptions: { requestIdHeader: 'x-request-id' },
      pluginOptions: { useFastifyRequestId: true },
    }),
  },
  {
    name: 'useFastifyRequestId with a genReqId that returns the header as sent',
    spec: (version) => ({
      version,
      fastifyOptions: {
        ...version.noHeader,
        genReqId: (req: { headers: Record<string, unknown> }) => req.headers['x-request-id'],
      },
      pluginOptions: { useFastifyRequestId: true },
    }),
  },
  {
    name: 'a plugin that sets its own genReqId, returning the header as sent',
    spec: (version) => ({
      version,
      fastifyOptions: version.noHeader,
      setUp: async (app: FastifyInstance) => {
        await app.register(async (child) => {
          child.setGenReqId((req) => String(req.headers['x-request-id']));
          child.get('/child', answerIds);
        });
      },
    }),
    path: '/child',
  },
  {
    name: "fastify's logger off, fastify's requestIdHeader set",
    spec: (version) => ({ version, logger: false, fastifyOptions: { requestIdHeader: 'x-request-id' } }),
  },
];

let emitWarning: jest.SpyInstance;
beforeEach(() => {
  // The unsafe modes warn; the warnings are asserted on below, with a fresh copy of the plugin.
  emitWarning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
});
afterEach(() => emitWarning.mockRestore());

describe.each(versions)('$name', (version) => {
  it('the recommended setup: request.id, reqId, requestId and the echoed header are one id on every line of each of 40 concurrent requests', async () => {
    const app = await startApp({ version, fastifyOptions: version.noHeader });
    const sent = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? `client-${i}.v1:a=b+c/d@e` : undefined));
    const responses = await Promise.all(
      sent.map((id) => get(app.port, id === undefined ? [] : ['x-request-id', id])),
    ).finally(() => app.close());

    const generated: string[] = [];
    responses.forEach((response, i) => {
      const id = response.echoed as string;
      if (sent[i] === undefined) {
        expect(id).toMatch(uuidv7Pattern);
        generated.push(id);
      } else {
        expect(id).toBe(sent[i]);
      }
      expect(response.body).toEqual({ requestId: id, fastifyId: id });
      const lines = app.lines.filter((line) => line.reqId === id);
      expect(lines.map((line) => line.msg)).toEqual(['incoming request', 'handler line', 'request completed']);
      for (const line of lines) expect(line.requestId).toBe(id);
    });
    expect(new Set(generated).size).toBe(generated.length);
    // Every line of a request carries both fields, equal: none has one without the other.
    const requestLines = app.lines.filter((line) => line.reqId !== undefined || line.requestId !== undefined);
    expect(requestLines).toHaveLength(3 * sent.length);
    for (const line of requestLines) expect(line.requestId).toBe(line.reqId);
  });

  it('a child of request.log carries the same id', async () => {
    const app = await startApp({
      version,
      fastifyOptions: version.noHeader,
      setUp: (instance) => {
        instance.get('/child-logger', async (request) => {
          request.log.child({ part: 'child' }).info('from a child logger');
          return {};
        });
      },
    });
    await get(app.port, ['x-request-id', 'child-1'], '/child-logger').finally(() => app.close());
    expect(app.lines.find((line) => line.msg === 'from a child logger')).toMatchObject({
      reqId: 'child-1',
      requestId: 'child-1',
      part: 'child',
    });
  });

  it("a route's own logLevel, and a childLoggerFactory of the user's: their lines carry the id too", async () => {
    const app = await startApp({
      version,
      fastifyOptions: version.noHeader,
      // fastify 4 takes a childLoggerFactory only this way.
      beforePlugin: (instance) =>
        instance.setChildLoggerFactory((logger, bindings, options) =>
          logger.child({ ...bindings, tenant: 't1' }, options),
        ),
      setUp: (instance) => {
        instance.get('/debug', { logLevel: 'debug' }, async (request) => {
          request.log.debug('debug line');
          return {};
        });
      },
    });
    await get(app.port, ['x-request-id', 'level-1'], '/debug');
    await get(app.port, ['x-request-id', 'factory-1']).finally(() => app.close());
    const lines = app.lines.filter((line) => line.reqId !== undefined);
    expect(lines.map((line) => [line.msg, line.reqId, line.requestId, line.tenant])).toEqual([
      ['incoming request', 'level-1', 'level-1', 't1'],
      ['debug line', 'level-1', 'level-1', 't1'],
      ['request completed', 'level-1', 'level-1', 't1'],
      ['incoming request', 'factory-1', 'factory-1', 't1'],
      ['handler line', 'factory-1', 'factory-1', 't1'],
      ['request completed', 'factory-1', 'factory-1', 't1'],
    ]);
  });

  it("a childLoggerFactory that returns one shared logger, with fastify's requestIdHeader: one id, none invalid", async () => {
    const app = await startApp({
      version,
      fastifyOptions: { requestIdHeader: 'x-request-id' },
      beforePlugin: (instance) => instance.setChildLoggerFactory((logger) => logger),
    });
    const response = await get(app.port, ['x-request-id', 'a"b c<script>']).finally(() => app.close());
    const id = response.echoed as string;
    expect(id).toMatch(uuidv7Pattern);
    expect(response.body).toEqual({ requestId: id, fastifyId: id });
    for (const text of app.text) expect(text).not.toContain('<script>');
    expect(app.lines.find((line) => line.msg === 'handler line')?.requestId).toBe(id);
  });

  it('a logger whose children cannot descend from another object is left as it is', async () => {
    const messages: string[] = [];
    class StrictLogger {
      readonly #messages: string[];
      readonly level = 'info';
      constructor(sink: string[]) {
        this.#messages = sink;
      }
      child(): StrictLogger {
        return new StrictLogger(this.#messages);
      }
      info(_object: unknown, message?: string): void {
        this.#messages.push(String(message ?? _object));
      }
      error = this.info;
      warn = this.info;
      debug = this.info;
      fatal = this.info;
      trace = this.info;
    }
    const app = await startApp({
      version,
      logger: false,
      fastifyOptions: { ...version.noHeader, [version.loggerOption]: new StrictLogger(messages) },
    });
    const response = await get(app.port, ['x-request-id', 'strict-1']).finally(() => app.close());
    expect(response.body).toEqual({ requestId: 'strict-1', fastifyId: 'strict-1' });
    expect(messages).toEqual(expect.arrayContaining(['incoming request', 'handler line', 'request completed']));
  });

  it("fastify's default 404 handler: reqId is Ambient's on every line, requestId on every line but its first", async () => {
    const app = await startApp({ version, fastifyOptions: version.noHeader });
    const response = await get(app.port, ['x-request-id', 'a"b c<script>'], '/nowhere').finally(() => app.close());
    const id = response.echoed as string;
    expect([response.status, id]).toEqual([404, expect.stringMatching(uuidv7Pattern)]);
    // fastify makes the default 404 handler's logger before any plugin loads (see the README's pitfalls).
    expect(app.lines.filter((line) => line.reqId !== undefined).map((line) => [line.reqId, line.requestId])).toEqual([
      [id, undefined],
      [id, id],
      [id, id],
    ]);
    for (const text of app.text) expect(text).not.toContain('<script>');
  });

  it('a 404 handler set after the plugin carries the id on every line', async () => {
    const app = await startApp({
      version,
      fastifyOptions: version.noHeader,
      setUp: (instance) => {
        instance.setNotFoundHandler(async (request, reply) => {
          request.log.info('not found here');
          return reply.code(404).send({ requestId: request.id, fastifyId: request.id });
        });
      },
    });
    await get(app.port, ['x-request-id', 'missing-1'], '/nowhere').finally(() => app.close());
    const lines = app.lines.filter((line) => line.reqId !== undefined);
    expect(lines.map((line) => line.msg)).toEqual(['incoming request', 'not found here', 'request completed']);
    for (const line of lines) expect([line.reqId, line.requestId]).toEqual(['missing-1', 'missing-1']);
  });

  describe.each(modes)('$name', (mode) => {
    it.each(invalidIds)(
      'an invalid id (%s) is never echoed, never on request.id and never in a log line',
      async (_what, values, forbidden) => {
        const app = await startApp(mode.spec(version));
        const header = mode.header ?? 'x-request-id';
        const responses = await Promise.all(
          Array.from({ length: 5 }, () =>
            get(
              app.port,
              values.flatMap((value) => [header, value]),
              mode.path,
            ),
          ),
        ).finally(() => app.close());
        for (const response of responses) {
          expect(response.status).toBe(200);
          const id = response.echoed as string;
          expect(id).toMatch(uuidv7Pattern);
          expect(response.body).toEqual({ requestId: id, fastifyId: id });
          for (const line of app.lines.filter((line) => line.reqId === id || line.requestId === id)) {
            expect([line.reqId, line.requestId]).toEqual([id, id]);
          }
        }
        for (const text of app.text) for (const value of forbidden) expect(text).not.toContain(value);
        for (const line of app.lines) expect(line.requestId).toBe(line.reqId);
      },
    );
  });
});
