// The orders board: one node:http server for three transports. GraphQL queries and mutations come over HTTP
// (Yoga under httpContext), subscriptions over graphql-ws on a scoped WebSocketServer, and a chat over socket.io
// with socketIoContext. No handler passes an id on, yet every line names its request or message, the connection
// that caused it and the GraphQL operation it serves.
import http from 'node:http';
import DataLoader from 'dataloader';
import { execute, subscribe } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { createPubSub, createSchema, createYoga } from 'graphql-yoga';
import { Server } from 'socket.io';
import { WebSocketServer } from 'ws';
import { graphqlWsOperations, yogaOperationPlugin } from '@ambient/graphql-context';
import { httpContext } from '@ambient/http-context';
import { scopeWebSocketServer, socketIoContext } from '@ambient/ws-context';

const typeDefs = /* GraphQL */ `
  type Order {
    id: ID!
    item: String!
  }
  type Query {
    order(id: ID!): Order
  }
  type Mutation {
    placeOrder(item: String!): Order!
  }
  type Subscription {
    orderPlaced: Order!
  }
`;

/** The server (not yet listening) and a `close()` that ends its sockets too. */
export function createApp({ logger }) {
  const log = { http: logger.child({ via: 'http' }), ws: logger.child({ via: 'ws' }) };
  const orders = new Map([['1', { id: '1', item: 'tea' }]]);
  const pubSub = createPubSub();

  const resolvers = {
    Query: {
      order: (_, { id }, { orderLoader }) => (log.http.info('finding order'), orderLoader.load(id)),
    },
    Mutation: {
      placeOrder(_, { item }) {
        // The item is a variable's value: it stays out of the log.
        const order = { id: String(orders.size + 1), item };
        orders.set(order.id, order);
        pubSub.publish('orderPlaced', order);
        log.http.info('order placed and published');
        return order;
      },
    },
    Subscription: {
      orderPlaced: {
        subscribe: () => (log.ws.info('watching placed orders'), pubSub.subscribe('orderPlaced')),
        resolve: (order) => (log.ws.info('order placed event'), order),
      },
    },
  };
  const schema = createSchema({ typeDefs, resolvers });

  // A loader per request: one shared between requests would run every batch in the scope of the request that
  // opened it.
  const context = () => ({
    orderLoader: new DataLoader(async (ids) => {
      log.http.info({ batch: ids.length }, 'loading orders');
      return ids.map((id) => orders.get(id) ?? null);
    }),
  });
  const yoga = createYoga({ schema, context, plugins: [yogaOperationPlugin()] }); // the operation plugin last
  const server = http.createServer(httpContext(yoga));

  const wss = scopeWebSocketServer(new WebSocketServer({ noServer: true })); // before useServer is given it
  wss.on('connection', () => log.ws.info('subscriber connected'));
  // graphql-ws has no operation hook: its execute and subscribe options run each operation, and pull each
  // subscription event, in the message's scope with the operation added.
  const graphqlWs = useServer({ schema, ...graphqlWsOperations({ execute, subscribe }) }, wss);
  server.on('upgrade', (req, socket, head) => {
    // socket.io answers its own upgrades on /socket.io/; the rest are not ours.
    if (new URL(req.url, 'http://localhost').pathname !== '/graphql') return;
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  const io = new Server(server);
  io.use(socketIoContext()); // first, so that what comes after it runs in the socket's scope
  const chat = logger.child({ via: 'socket.io' });
  io.on('connection', (socket) => {
    chat.info('chat connected');
    socket.on('chat', (text, ack) => {
      chat.info({ length: text.length }, 'chat message');
      ack('seen');
    });
  });

  async function close() {
    await graphqlWs.dispose();
    await io.close(); // closes the http server too
  }
  return { server, close };
}
