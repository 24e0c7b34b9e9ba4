// graphql 17 on node:http with httpContext: traceGraphQLOperations() binds graphql's own TracingChannels, and
// nothing else is needed. graphql 17 is installed as the alias `graphql17` beside graphql 16.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSchema, graphql, parse, subscribe, type GraphQLSchema } from 'graphql17';
import { requestContext } from '@ambient/core';
import { httpContext } from '@ambient/http-context';
import { traceGraphQLOperations, type GraphQLTracing } from '@ambient/graphql-context';
import {
  expectOwnRequestAndOperation,
  expectSharedLoaderReported,
  twoConcurrentRequests,
} from './helpers/assertions.js';
import { logSink, post, renameBatch, scenario, typeDefs } from './helpers/scenario.js';
import pino from 'pino';
import { correlationMixin } from '@ambient/pino-context';

// graphql 17 publishes its channels through process.getBuiltinModule (Node 20.16+; it declares engines
// ^22 || ^24 || >=26 but runs on Node 20.16+ too). The channel binding itself is tested on every Node by
// trace-operations.test.ts, which publishes on graphql's channels directly.
const graphql17Runs = typeof process.getBuiltinModule === 'function';
// Skipped only on a Node older than 20.16, where graphql 17 cannot load diagnostics_channel (above).
const describeOnGraphQL17 = graphql17Runs ? describe : describe.skip;

type Scenario = ReturnType<typeof scenario>;
type Resolvers = Record<string, Record<string, (...args: never[]) => unknown>>;

/** graphql 17's buildSchema with the scenario's resolvers set on its fields (no graphql-tools for 17). */
function schemaWith(resolvers: Resolvers, sdl = typeDefs): GraphQLSchema {
  const schema = buildSchema(sdl);
  for (const [typeName, fields] of Object.entries(resolvers)) {
    const type = schema.getType(typeName) as unknown as { getFields(): Record<string, { resolve?: unknown }> };
    for (const [field, resolve] of Object.entries(fields)) type.getFields()[field]!.resolve = resolve;
  }
  return schema;
}

async function readBody(req: NodeJS.ReadableStream): Promise<string> {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return body;
}

/** A node:http server that runs each operation of a request (one, or a batch) with graphql 17's graphql(). */
async function serve(run: Scenario): Promise<{ url: string; server: Server }> {
  const schema = schemaWith(run.resolvers);
  const server = createServer(
    httpContext(async (req, res) => {
      const body = JSON.parse(await readBody(req)) as unknown;
      const operations = (Array.isArray(body) ? body : [body]) as Array<{
        query: string;
        operationName?: string;
        variables?: Record<string, unknown>;
      }>;
      const results = await Promise.all(
        operations.map((operation) =>
          graphql({
            schema,
            source: operation.query,
            operationName: operation.operationName,
            variableValues: operation.variables,
            contextValue: run.context(),
          }),
        ),
      );
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(Array.isArray(body) ? results : results[0]));
    }),
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`, server };
}

describeOnGraphQL17('graphql 17 on node:http, traced through its channels', () => {
  let tracing: GraphQLTracing;
  let run: Scenario | undefined;
  let server: Server | undefined;
  beforeAll(() => (tracing = traceGraphQLOperations()));
  afterAll(() => tracing.dispose());
  afterEach(async () => {
    if (server !== undefined) await new Promise((resolve) => server!.close(resolve));
    run?.disable();
  });

  it('two concurrent requests, each through its own DataLoader: every resolver line has its request and operation', async () => {
    run = scenario({ shared: false });
    const served = await serve(run);
    server = served.server;
    await twoConcurrentRequests(served.url, 'req-17');
    expectOwnRequestAndOperation(run.lines, run.raw, 'req-17', run.reports());
  });

  it('a DataLoader shared between the two requests is reported, with where it was created', async () => {
    run = scenario({ shared: true });
    const served = await serve(run);
    server = served.server;
    await twoConcurrentRequests(served.url, 'req-17');
    expectSharedLoaderReported(run.lines, 'req-17', run.reports());
  });

  it('a batch of two operations in one request: each its own operation, the request scope unchanged', async () => {
    run = scenario({ shared: false });
    const served = await serve(run);
    server = served.server;
    expect(await post(served.url, 'req-17-batch', renameBatch)).toEqual([
      { data: { rename: { id: 'user-1' } } },
      { data: { rename: { id: 'user-2' } } },
    ]);
    expect(run.lines.filter((line) => line['at'] === 'rename').map((line) => line['operation'])).toEqual([
      { name: 'Rename', type: 'mutation' },
      { type: 'mutation' },
    ]);
    expect(run.raw.filter((line) => line.includes('hunter2'))).toEqual([]);
  });

  it("a subscription: its resolver and each event's execution carry the operation", async () => {
    const { stream, lines } = logSink();
    const logger = pino({ mixin: correlationMixin(), base: undefined, timestamp: false }, stream);
    const schema = buildSchema('type Query { now: Int } type Subscription { ticks: Int }');
    const ticks = (
      schema.getType('Subscription') as unknown as {
        getFields(): Record<string, { subscribe?: unknown; resolve?: unknown }>;
      }
    ).getFields()['ticks']!;
    // The resolver runs in the operation's scope; an async generator's body would run where its events are pulled.
    ticks.subscribe = () => {
      logger.info({ at: 'subscribe' }, 'subscribed');
      return (async function* () {
        yield { ticks: 1 };
        yield { ticks: 2 };
      })();
    };
    // Each event runs as an execution of its own (graphql's rootSelectionSet channel again).
    ticks.resolve = (event: { ticks: number }) => {
      logger.info({ at: 'event', tick: event.ticks }, 'event');
      return event.ticks;
    };
    const values = await requestContext.run({ requestId: 'req-17-sub' }, async () => {
      const events = (await subscribe({ schema, document: parse('subscription Ticks { ticks }') })) as AsyncIterable<{
        data: { ticks: number };
      }>;
      const seen: number[] = [];
      for await (const event of events) seen.push(event.data.ticks);
      return seen;
    });
    expect(values).toEqual([1, 2]);
    expect(lines.map((line) => [line['at'], line['requestId'], line['operation']])).toEqual([
      ['subscribe', 'req-17-sub', { name: 'Ticks', type: 'subscription' }],
      ['event', 'req-17-sub', { name: 'Ticks', type: 'subscription' }],
      ['event', 'req-17-sub', { name: 'Ticks', type: 'subscription' }],
    ]);
  });

  it('outside any request, an operation runs as it is and its lines carry no ids', async () => {
    const { stream, lines } = logSink();
    const logger = pino({ mixin: correlationMixin(), base: undefined, timestamp: false }, stream);
    const schema = schemaWith({ Query: { now: () => (logger.info('resolving'), 1) } }, 'type Query { now: Int }');
    expect(await graphql({ schema, source: 'query Now { now }' })).toEqual({ data: { now: 1 } });
    expect(lines).toEqual([{ level: 30, msg: 'resolving' }]);
  });
});
