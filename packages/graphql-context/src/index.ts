export { traceGraphQLOperations, type GraphQLTracing } from './trace-operations.js';
export { runInOperation, type OperationInfo, type OperationType } from './operation.js';
export {
  apolloOperationPlugin,
  mercuriusOperationHook,
  yogaOperationPlugin,
  type ApolloOperationPlugin,
  type MercuriusOperationHook,
  type YogaOperationPlugin,
} from './hosts.js';
export { graphqlWsOperations, type GraphQLExecutors } from './graphql-ws.js';
export type { GraphQLContextError, GraphQLContextErrorCode } from './errors.js';
