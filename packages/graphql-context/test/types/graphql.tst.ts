import { expect, test } from 'tstyche';
import { ApolloServer, type BaseContext } from '@apollo/server';
import { createSchema, createYoga } from 'graphql-yoga';
import fastify from 'fastify';
import mercurius from 'mercurius';
import { execute, subscribe, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import {
  apolloOperationPlugin,
  graphqlWsOperations,
  mercuriusOperationHook,
  runInOperation,
  traceGraphQLOperations,
  yogaOperationPlugin,
  type GraphQLTracing,
  type OperationInfo,
} from '@ambient/graphql-context';
import type { RequestStore } from '@ambient/core';

test('the operation is a field of RequestStore, with one of three types', () => {
  expect<RequestStore['operation']>().type.toBe<OperationInfo | undefined>();
  expect({ type: 'query' as const }).type.toBeAssignableTo<OperationInfo>();
  expect({ name: 'GetUser', type: 'delete' }).type.not.toBeAssignableTo<OperationInfo>();
});

test('traceGraphQLOperations takes nothing and returns the tracing to dispose', () => {
  expect(traceGraphQLOperations()).type.toBe<GraphQLTracing>();
  expect(traceGraphQLOperations).type.not.toBeCallableWith({ channels: [] });
});

test('runInOperation passes arguments through with their types and returns what fn returns', () => {
  expect(runInOperation({ type: 'query' }, (a: number, b: string) => `${a}${b}`, 1, 'x')).type.toBe<string>();
  expect(runInOperation).type.not.toBeCallableWith({ type: 'query' }, (a: number) => a, 'one');
  expect(runInOperation).type.not.toBeCallableWith({ type: 'delete' }, () => 1);
  expect(runInOperation).type.not.toBeCallableWith({ name: 1, type: 'query' }, () => 1);
});

test('each host value fits the slot it is named after', () => {
  expect(new ApolloServer({ typeDefs: 'type Query { a: Int }', plugins: [apolloOperationPlugin()] })).type.toBe<
    ApolloServer<BaseContext>
  >();
  createYoga({ schema: createSchema({ typeDefs: 'type Query { a: Int }' }), plugins: [yogaOperationPlugin()] });
  const app = fastify();
  void app.register(mercurius, { schema: 'type Query { a: Int }' });
  expect(app.graphql.addHook).type.toBeCallableWith('preExecution', mercuriusOperationHook());
  expect(apolloOperationPlugin).type.not.toBeCallableWith({});
});

test("graphqlWsOperations() fills graphql-ws's execute and subscribe slots with graphql's own types", () => {
  const schema = {} as GraphQLSchema;
  const operations = graphqlWsOperations({ execute, subscribe });
  expect(operations.execute).type.toBe<typeof execute>();
  expect(useServer).type.toBeCallableWith({ schema, ...operations }, new WebSocketServer({ noServer: true }));
  expect(graphqlWsOperations).type.not.toBeCallableWith({ execute });
});
