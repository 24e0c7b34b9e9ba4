// graphql-ws 6 (`useServer` of graphql-ws/use/ws) on a scoped `ws` server on 127.0.0.1, with graphql-ws's own
// client: each operation runs in the scope of the message that started it, a subscription's events included.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestContext, type RequestStore } from '@ambient/core';
import { scopeWebSocketServer } from '@ambient/ws-context';
import { GraphQLInt, GraphQLList, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocket, WebSocketServer } from 'ws';

const snapshot = () => requestContext.snapshot() as RequestStore | undefined;
const pause = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 5));

/** What a resolver reports of the scope it runs in. */
const scopeType = new GraphQLObjectType({
  name: 'Scope',
  fields: {
    requestId: { type: GraphQLString },
    causationId: { type: GraphQLString },
    correlationId: { type: GraphQLString },
    tick: { type: GraphQLInt },
  },
});
const inScope = (tick?: number) => ({ ...snapshot(), tick });

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      scope: { type: scopeType, resolve: async () => (await pause(), inScope()) },
      scopes: { type: new GraphQLList(scopeType), resolve: () => [inScope()] },
    },
  }),
  subscription: new GraphQLObjectType({
    name: 'Subscription',
    fields: {
      ticks: {
        type: scopeType,
        subscribe: async function* () {
          for (let tick = 0; tick < 3; tick++) {
            await pause();
            yield { ticks: inScope(tick) };
          }
        },
      },
    },
  }),
});

let client: Client;
let stop: () => Promise<void>;
let connected: RequestStore | undefined;

beforeAll(async () => {
  const http = createServer();
  const wss = scopeWebSocketServer(new WebSocketServer({ server: http, path: '/graphql' }));
  wss.on('connection', () => (connected = snapshot()));
  const server = useServer({ schema }, wss);
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  client = createClient({
    url: `ws://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`,
    webSocketImpl: class extends WebSocket {
      constructor(address: string, protocols: string[]) {
        super(address, protocols, { headers: { 'x-request-id': 'conn-gql', 'x-correlation-id': 'chain-gql' } });
      }
    },
  });
  stop = async () => {
    await client.dispose();
    await server.dispose();
    http.close();
  };
});
afterAll(() => stop());

type Scope = { requestId: string; causationId: string; correlationId: string; tick: number | null };

describe('graphql-ws over scopeWebSocketServer', () => {
  it('queries and subscriptions, run side by side, each run in the scope of its own message', async () => {
    const query = (): Promise<Scope> =>
      new Promise((resolve, reject) => {
        client.subscribe<{ scope: Scope }>(
          { query: '{ scope { requestId causationId correlationId } }' },
          { next: ({ data }) => resolve(data!.scope), error: reject, complete: () => {} },
        );
      });
    const subscription = async (): Promise<Scope[]> => {
      const ticks: Scope[] = [];
      for await (const { data } of client.iterate<{ ticks: Scope }>({
        query: 'subscription { ticks { requestId causationId correlationId tick } }',
      })) {
        ticks.push(data!.ticks);
      }
      return ticks;
    };
    const [subscriptionA, queryA, subscriptionB, queryB] = await Promise.all([
      subscription(),
      query(),
      subscription(),
      query(),
    ]);
    expect(connected).toEqual({ requestId: 'conn-gql', correlationId: 'chain-gql' });
    const operations = [subscriptionA, [queryA], subscriptionB, [queryB]];
    for (const results of operations) {
      for (const result of results) {
        expect(result).toMatchObject({ causationId: 'conn-gql', correlationId: 'chain-gql' });
        // Every event of one subscription in the scope its subscribe message opened.
        expect(result.requestId).toBe(results[0]!.requestId);
      }
    }
    expect(subscriptionA.map((tick) => tick.tick)).toEqual([0, 1, 2]);
    const ids = operations.map((results) => results[0]!.requestId);
    expect(new Set(ids).size).toBe(4);
    expect(ids).not.toContain('conn-gql');
  });
});
