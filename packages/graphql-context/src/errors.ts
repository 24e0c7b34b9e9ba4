import type { AmbientError } from '@ambient/core';
import { defineErrors, usageErrorTemplates, type CodesOf } from '@ambient/core/internal';

declare module '@ambient/core' {
  interface AmbientErrorCodes {
    ERR_AMBIENT_GRAPHQL_INVALID_ARGUMENT: true;
  }
}

/** Every error @ambient/graphql-context throws. Match on `error.code`, never on the message. */
export const errors = defineErrors({
  ...usageErrorTemplates({ option: 'ERR_AMBIENT_GRAPHQL_INVALID_ARGUMENT' }),
});

export type GraphQLContextErrorCode = CodesOf<typeof errors>;
export type GraphQLContextError = AmbientError<GraphQLContextErrorCode>;
