// Plain `node --test` on the built packages, outside jest, where jest cannot go: Mercurius with its default query
// cache and graphql-jit (both loaded in ways jest's module system refuses), and graphql 17's own channels on
// node:http. Two concurrent requests each; every resolver line carries its request and operation.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import fastify from 'fastify';
import mercurius from 'mercurius';
import pino from 'pino';
import { fastifyContext } from '@ambient/fastify-context';
import { httpContext } from '@ambient/http-context';
import { mercuriusOperationHook, traceGraphQLOperations } from '@ambient/graphql-context';
import { correlationMixin } from '@ambient/pino-context';

const typeDefs = 'type Query { user(id: ID!, secret: String): String }';
const query = 'query GetUser($id: ID!, $secret: String) { user(id: $id, secret: $secret) }';

function logged() {
  const lines = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(line);
      callback();
    },
  });
  const logger = pino({ mixin: correlationMixin(), base: undefined, timestamp: false }, stream);
  const user = async (_, { id }) => {
    await sleep(Math.random() * 5);
    logger.info({ id }, 'resolving user');
    return id;
  };
  return { lines, user };
}

/** Each request of `rounds` rounds of two concurrent ones: its resolver line has its id and the operation. */
async function twoConcurrent(url, prefix, lines, rounds = 1) {
  for (let round = 0; round < rounds; round++) {
    await Promise.all(
      [1, 2].map(async (n) => {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-request-id': `${prefix}-${round}-${n}` },
          body: JSON.stringify({ query, variables: { id: `${round}-${n}`, secret: 'hunter2' } }),
        });
        assert.deepEqual(await response.json(), { data: { user: `${round}-${n}` } });
      }),
    );
  }
  const parsed = lines.map((line) => JSON.parse(line));
  assert.equal(parsed.length, rounds * 2);
  for (const line of parsed) {
    assert.equal(line.requestId, `${prefix}-${line.id}`);
    assert.deepEqual(line.operation, { name: 'GetUser', type: 'query' });
  }
  assert.ok(lines.every((line) => !line.includes('hunter2')));
}

test('Mercurius with its query cache and graphql-jit (from the second run of a query)', async () => {
  const { lines, user } = logged();
  const app = fastify();
  await app.register(fastifyContext);
  await app.register(mercurius, { schema: typeDefs, resolvers: { Query: { user } }, jit: 1 });
  app.graphql.addHook('preExecution', mercuriusOperationHook());
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    await twoConcurrent(`http://127.0.0.1:${app.server.address().port}/graphql`, 'req-m', lines, 3);
  } finally {
    await app.close();
  }
});

// graphql 17 publishes its channels through process.getBuiltinModule: Node 20.16 and later.
const graphql17Runs = typeof process.getBuiltinModule === 'function';

test(
  'graphql 17 on node:http, through its TracingChannels',
  // Skipped only on a Node older than 20.16, where graphql 17 cannot load diagnostics_channel (above).
  { skip: !graphql17Runs && 'graphql 17 needs process.getBuiltinModule (Node 20.16+)' },
  async () => {
    const { graphql, buildSchema } = await import('graphql17');
    const { lines, user } = logged();
    const schema = buildSchema(typeDefs);
    schema.getQueryType().getFields().user.resolve = user;
    const tracing = traceGraphQLOperations();
    const server = createServer(
      httpContext(async (req, res) => {
        let body = '';
        for await (const chunk of req) body += chunk;
        const { query: source, variables: variableValues } = JSON.parse(body);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(await graphql({ schema, source, variableValues })));
      }),
    );
    await once(server.listen(0, '127.0.0.1'), 'listening');
    try {
      await twoConcurrent(`http://127.0.0.1:${server.address().port}/graphql`, 'req-17', lines);
    } finally {
      tracing.dispose();
      server.close();
    }
  },
);
