import { AmbientError, describeValue } from '@ambient/core';

/** Every code @ambient/fastify-context throws, beyond @ambient/http-context's for the shared options. */
export type FastifyContextErrorCode = 'ERR_AMBIENT_FASTIFY_INVALID_OPTION';

export const errors = {
  invalidOption(
    where: string,
    option: string,
    expected: string,
    received: unknown,
  ): AmbientError<FastifyContextErrorCode> {
    return new AmbientError(
      'ERR_AMBIENT_FASTIFY_INVALID_OPTION',
      `${where}: option "${option}" must be ${expected}, received ${describeValue(received)}.`,
    );
  },
};
