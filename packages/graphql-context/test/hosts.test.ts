// Apollo Server 5 on express, GraphQL Yoga on node:http and Mercurius on fastify, on graphql 16: each runs the
// scenario (helpers/scenario.ts) with Ambient's adapter in front and this package's hook for the host.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import express from 'express';
import fastify from 'fastify';
import { createSchema, createYoga } from 'graphql-yoga';
import mercurius from 'mercurius';
import { expressContext } from '@ambient/express-context';
import { fastifyContext } from '@ambient/fastify-context';
import { httpContext } from '@ambient/http-context';
import { apolloOperationPlugin, mercuriusOperationHook, yogaOperationPlugin } from '@ambient/graphql-context';
import {
  expectOwnRequestAndOperation,
  expectSharedLoaderReported,
  twoConcurrentRequests,
} from './helpers/assertions.js';
import { post, renameBatch, scenario, typeDefs, type Context } from './helpers/scenario.js';

// Mercurius loads @fastify/static for GraphiQL, which needs an ES-module-only dependency jest cannot require
// before Node 24.9 (plain Node can). GraphiQL stays off here, so the plugin is never registered.
jest.mock('@fastify/static', () => () => undefined);

type Scenario = ReturnType<typeof scenario>;

interface Host {
  readonly url: string;
  close(): Promise<void>;
}

async function listen(server: Server, path: string): Promise<Host> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const hosts: ReadonlyArray<[string, (run: Scenario) => Promise<Host>]> = [
  [
    'Apollo Server 5 on express',
    async (run) => {
      const apollo = new ApolloServer<Context>({
        typeDefs,
        resolvers: run.resolvers,
        plugins: [apolloOperationPlugin()],
        allowBatchedHttpRequests: true,
      });
      await apollo.start();
      const app = express();
      app.use(expressContext());
      app.use('/graphql', express.json(), expressMiddleware(apollo, { context: async () => run.context() }));

      const host = await listen(createServer(app), '/graphql');
      return { url: host.url, close: async () => (await apollo.stop(), await host.close()) };
    },
  ],
  [
    'GraphQL Yoga 5 on node:http',
    (run) => {
      const yoga = createYoga<object, Context>({
        schema: createSchema({ typeDefs, resolvers: run.resolvers }),
        plugins: [yogaOperationPlugin()],
        context: () => run.context(),
        logging: false,
        batching: true,
      });
      return listen(createServer(httpContext(yoga)), '/graphql');
    },
  ],
  [
    'Mercurius 16 on fastify 5',
    async (run) => {
      const app = fastify();
      await app.register(fastifyContext);
      await app.register(mercurius, {
        schema: typeDefs,
        resolvers: run.resolvers as never,
        context: () => run.context(),
        allowBatchedQueries: true,
        graphiql: false,
        // Its query cache is loaded with import(), which jest runs only under --experimental-vm-modules.
        cache: false,
      });
      app.graphql.addHook('preExecution', mercuriusOperationHook());
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      return { url: `http://127.0.0.1:${port}/graphql`, close: () => app.close() };
    },
  ],
];

describe.each(hosts)('%s', (name, start) => {
  const prefix = `req-${name.split(' ')[0]!.toLowerCase()}`;
  let run: Scenario | undefined;
  let host: Host | undefined;
  afterEach(async () => {
    await host?.close();
    run?.disable();
  });

  it('two concurrent requests, each through its own DataLoader: every resolver line has its request and operation', async () => {
    run = scenario({ shared: false });
    host = await start(run);
    await twoConcurrentRequests(host.url, prefix);
    expectOwnRequestAndOperation(run.lines, run.raw, prefix, run.reports());
  });

  it('a DataLoader shared between the two requests is reported, with where it was created', async () => {
    run = scenario({ shared: true });
    host = await start(run);
    await twoConcurrentRequests(host.url, prefix);
    expectSharedLoaderReported(run.lines, prefix, run.reports());
  });

  it('a batch of two operations in one HTTP request: each line has its own operation, the request one id', async () => {
    run = scenario({ shared: false });
    host = await start(run);
    const requestId = `${prefix}-batch`;
    expect(await post(host.url, requestId, renameBatch)).toEqual([
      { data: { rename: { id: 'user-1' } } },
      { data: { rename: { id: 'user-2' } } },
    ]);
    const renames = run.lines.filter((line) => line['at'] === 'rename');
    expect(renames.map((line) => [line['requestId'], line['operation']])).toEqual([
      [requestId, { name: 'Rename', type: 'mutation' }],
      [requestId, { type: 'mutation' }],
    ]);
    expect(run.raw.filter((line) => line.includes('hunter2'))).toEqual([]);
  });
});
