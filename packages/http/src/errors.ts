import { AmbientError, describeValue as describe } from '@ambient/core';

/** Every code @ambient/http-context throws. Match on `error.code`, never on the message. */
export type HttpContextErrorCode = 'ERR_AMBIENT_HTTP_INVALID_OPTION' | 'ERR_AMBIENT_HTTP_INVALID_ARGUMENT';

export type HttpContextError = AmbientError<HttpContextErrorCode>;

export const errors = {
  invalidOption(where: string, option: string, expected: string, received: unknown): HttpContextError {
    return new AmbientError(
      'ERR_AMBIENT_HTTP_INVALID_OPTION',
      `${where}: option "${option}" must be ${expected}, received ${describe(received)}.`,
    );
  },

  invalidArgument(where: string, expected: string, received: unknown): HttpContextError {
    return new AmbientError(
      'ERR_AMBIENT_HTTP_INVALID_ARGUMENT',
      `${where}: expected ${expected}, received ${describe(received)}.`,
    );
  },

  unknownOption(where: string, option: string, known: readonly string[]): HttpContextError {
    return new AmbientError(
      'ERR_AMBIENT_HTTP_INVALID_OPTION',
      `${where}: unknown option "${option}". Known options: ${known.join(', ')}.`,
    );
  },
};
