// graphql-ws 6 on graphql 16 over a scoped `ws` server on 127.0.0.1, with graphql-ws's own client:
// graphqlWsOperations() gives each operation, and each event of a subscription, its operation.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestContext } from '@ambient/core';
import { scopeWebSocketServer } from '@ambient/ws-context';
import { execute, GraphQLObjectType, GraphQLSchema, GraphQLString, parse, subscribe } from 'graphql';
import { createClient } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocket, WebSocketServer } from 'ws';
import { graphqlWsOperations } from '@ambient/graphql-context';

const pause = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
/** The scope a resolver runs in, as a line would show it. */
const seen = () =>
  JSON.stringify({ operation: requestContext.get('operation'), causationId: requestContext.get('causationId') });

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: { seen: { type: GraphQLString, resolve: async () => (await pause(), seen()) } },
  }),
  subscription: new GraphQLObjectType({
    name: 'Subscription',
    fields: {
      ticks: {
        type: GraphQLString,
        subscribe: async function* () {
          const atSubscribe = seen();
          for (let tick = 0; tick < 3; tick++) {
            await pause();
            yield { atSubscribe };
          }
        },
        // Each event's own resolve: computed where graphql-ws pulls the event.
        resolve: (event: { atSubscribe: string }) => `${event.atSubscribe} ${seen()}`,
      },
    },
  }),
});

async function serve(withOperations: boolean) {
  const http = createServer();
  const wss = scopeWebSocketServer(new WebSocketServer({ server: http, path: '/graphql' }));
  const server = useServer(
    withOperations ? { schema, ...graphqlWsOperations({ execute, subscribe }) } : { schema },
    wss,
  );
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const { port } = http.address() as AddressInfo;
  class Connection extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers: { 'x-request-id': 'ws-conn-1' } });
    }
  }
  const client = createClient({ url: `ws://127.0.0.1:${port}/graphql`, webSocketImpl: Connection, lazy: false });
  return {
    client,
    async close() {
      await client.dispose();
      await server.dispose();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

async function collect(client: ReturnType<typeof createClient>, query: string): Promise<string[]> {
  const results: string[] = [];
  for await (const result of client.iterate({ query })) {
    const data = result.data as Record<string, string> | undefined;
    if (result.errors !== undefined) throw new Error(JSON.stringify(result.errors));
    results.push(Object.values(data ?? {})[0]!);
  }
  return results;
}

const operation = (name: string, type: string) =>
  JSON.stringify({ operation: { name, type }, causationId: 'ws-conn-1' });

describe('graphqlWsOperations({ execute, subscribe }) on graphql-ws', () => {
  it('each query, subscribe resolver and subscription event carries its own operation, in parallel', async () => {
    const { client, close } = await serve(true);
    try {
      const [first, second, ticks] = await Promise.all([
        collect(client, 'query First { seen }'),
        collect(client, 'query Second { seen }'),
        collect(client, 'subscription Ticks { ticks }'),
      ]);
      expect(first).toEqual([operation('First', 'query')]);
      expect(second).toEqual([operation('Second', 'query')]);
      const each = `${operation('Ticks', 'subscription')} ${operation('Ticks', 'subscription')}`;
      expect(ticks).toEqual([each, each, each]);
    } finally {
      await close();
    }
  });

  it("without it, the message's scope has no operation (what graphql-ws alone gives)", async () => {
    const { client, close } = await serve(false);
    try {
      const none = JSON.stringify({ causationId: 'ws-conn-1' });
      expect(await collect(client, 'query First { seen }')).toEqual([none]);
      expect(await collect(client, 'subscription Ticks { ticks }')).toEqual(Array(3).fill(`${none} ${none}`));
    } finally {
      await close();
    }
  });

  it("runs graphql's functions as they are outside any scope, and hands an error result on", async () => {
    const { execute: inOperation, subscribe: subscribeInOperation } = graphqlWsOperations({ execute, subscribe });
    expect(await inOperation({ schema, document: parse('query Outside { seen }') })).toEqual({
      data: { seen: JSON.stringify({}) },
    });
    const failed = await requestContext.run({ requestId: 'r-1' }, () =>
      subscribeInOperation({ schema, document: parse('subscription Missing { nothing }') }),
    );
    expect(failed).toMatchObject({ errors: [expect.anything()] });
    const unnamed = await requestContext.run({ requestId: 'r-4' }, () =>
      inOperation({ schema, document: parse('query A { seen }'), operationName: 'B' }),
    );
    expect(unnamed).toMatchObject({ errors: [{ message: 'Unknown operation named "B".' }] });
    const outside = (await subscribeInOperation({
      schema,
      document: parse('subscription Ticks { ticks }'),
    })) as AsyncIterableIterator<{ data: unknown }>;
    expect((await outside.next()).value.data).toEqual({ ticks: `${JSON.stringify({})} ${JSON.stringify({})}` });
    // Ended early, as graphql-ws ends a subscription its client completes: graphql's own return() runs.
    const inside = (await requestContext.run({ requestId: 'r-3' }, () =>
      subscribeInOperation({ schema, document: parse('subscription Ticks { ticks }') }),
    )) as AsyncIterableIterator<unknown>;
    await inside.next();
    expect(await inside.return!()).toEqual({ done: true, value: undefined });
    expect(await inside.next()).toEqual({ done: true, value: undefined });
  });

  it('takes a subscribe that answers at once (graphql 17 may), and ends a stream with no return() of its own', async () => {
    async function* events() {
      yield requestContext.get('operation');
      yield requestContext.get('operation');
    }
    const plain = events();
    const stream = { next: () => plain.next(), [Symbol.asyncIterator]: () => stream };
    const { subscribe: subscribeInOperation } = graphqlWsOperations({ execute, subscribe: (_args: unknown) => stream });
    const wrapped = requestContext.run({ requestId: 'r-2' }, () =>
      subscribeInOperation({ document: parse('subscription Now { ticks }') }),
    ) as unknown as AsyncIterableIterator<unknown>;
    expect(await wrapped.next()).toEqual({ done: false, value: { name: 'Now', type: 'subscription' } });
    expect(await wrapped.return!('ended')).toEqual({ done: true, value: 'ended' });
  });

  it('rejects anything but graphql-shaped functions, with a coded error', () => {
    for (const given of [undefined, {}, { execute }, { execute, subscribe: 'no' }]) {
      expect(() => graphqlWsOperations(given as never)).toThrow(
        expect.objectContaining({ code: 'ERR_AMBIENT_GRAPHQL_INVALID_ARGUMENT' }),
      );
    }
  });
});
