// Real fastify 4 and 5, real pino writing into a stream read back, real HTTP on 127.0.0.1.
import http from 'node:http';
import { Writable } from 'node:stream';
import fastify, { type FastifyInstance, type FastifyPluginCallback, type FastifyRequest } from 'fastify';
import fastify4 from 'fastify4';
import pino from 'pino';
import { correlationMixin } from '@ambient/pino-context';
import { fastifyContext, requestContext, type FastifyContextOptions } from '@ambient/fastify-context';

type CreateFastify = (options?: Record<string, unknown>) => FastifyInstance;

export interface FastifyVersion {
  readonly name: string;
  readonly create: CreateFastify;
  /** The fastify option that takes a pino instance: `loggerInstance` on 5, `logger` on 4. */
  readonly loggerOption: 'loggerInstance' | 'logger';
  /** What a fastify user writes to make fastify read no id header: fastify 4 reads "request-id" unless told. */
  readonly noHeader: Record<string, unknown>;
}

export const versions: readonly FastifyVersion[] = [
  { name: 'fastify 5', create: fastify, loggerOption: 'loggerInstance', noHeader: {} },
  // fastify 4 is installed under an npm alias; its API is the same for everything used here.
  {
    name: 'fastify 4',
    create: fastify4 as unknown as CreateFastify,
    loggerOption: 'logger',
    noHeader: { requestIdHeader: false },
  },
];

export interface LogLine {
  readonly msg?: string;
  readonly reqId?: string;
  readonly requestId?: string;
  readonly [key: string]: unknown;
}

export interface RunningApp {
  readonly port: number;
  /** Every line pino wrote, parsed, and as written. */
  readonly lines: LogLine[];
  readonly text: string[];
  close(): Promise<void>;
}

export interface AppSpec {
  readonly version: FastifyVersion;
  /** fastify's own options, beyond the logger. */
  readonly fastifyOptions?: Record<string, unknown>;
  /** `false`: fastify's logger stays off. */
  readonly logger?: boolean;
  readonly pluginOptions?: FastifyContextOptions;
  /** The plugin to register (default fastifyContext): a fresh copy for the once-per-process warnings. */
  readonly plugin?: FastifyPluginCallback<FastifyContextOptions>;
  /** Setup before the plugin is registered. */
  readonly beforePlugin?: (app: FastifyInstance) => void;
  /** Extra setup after the plugin, before the routes. */
  readonly setUp?: (app: FastifyInstance) => void | Promise<void>;
}

/** What GET / answers: the ids the handler sees. */
export interface Seen {
  readonly requestId: string | undefined;
  readonly fastifyId: string;
}

/** A handler that awaits a random delay, logs through `request.log` and answers the ids it sees. */
export async function answerIds(request: FastifyRequest): Promise<Seen> {
  await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
  request.log.info('handler line');
  return { requestId: requestContext.get('requestId'), fastifyId: request.id };
}

/**
 * Starts fastify with pino (`correlationMixin()`) writing into an array, the plugin, and GET / (answerIds).
 */
export async function startApp(spec: AppSpec): Promise<RunningApp> {
  const lines: LogLine[] = [];
  const text: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line === '') continue;
        text.push(line);
        lines.push(JSON.parse(line) as LogLine);
      }
      callback();
    },
  });
  const { version } = spec;
  const loggerOptions =
    spec.logger === false ? {} : { [version.loggerOption]: pino({ mixin: correlationMixin() }, stream) };
  const app = version.create({ ...loggerOptions, ...spec.fastifyOptions });
  spec.beforePlugin?.(app);
  await app.register(spec.plugin ?? fastifyContext, spec.pluginOptions ?? {});
  await spec.setUp?.(app);
  app.get('/', answerIds);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, lines, text, close: () => app.close() };
}

export interface Response {
  readonly status: number;
  readonly echoed: string | string[] | undefined;
  readonly body: Seen;
}

/** GET `path` with `headers` as a flat [name, value, …] list, so that a header can be sent twice. */
export function get(port: number, headers: readonly string[] = [], path = '/'): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = http.request({
      host: '127.0.0.1',
      port,
      path,
      agent: false,
      headers: ['host', `127.0.0.1:${port}`, ...headers],
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        resolve({
          status: response.statusCode ?? 0,
          echoed: response.headers['x-request-id'],
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Seen,
        });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

export const uuidv7Pattern = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
