import { AmbientError, describeValue as describe } from '@ambient/core';

/** Every code @ambient/pino-context throws. Match on `error.code`, never on the message. */
export type PinoContextErrorCode = 'ERR_AMBIENT_PINO_INVALID_OPTION' | 'ERR_AMBIENT_PINO_INVALID_ARGUMENT';

export type PinoContextError = AmbientError<PinoContextErrorCode>;

export const errors = {
  invalidOption(where: string, option: string, expected: string, received: unknown): PinoContextError {
    return new AmbientError(
      'ERR_AMBIENT_PINO_INVALID_OPTION',
      `${where}: option "${option}" must be ${expected}, received ${describe(received)}.`,
    );
  },

  unknownOption(where: string, option: string, known: readonly string[]): PinoContextError {
    return new AmbientError(
      'ERR_AMBIENT_PINO_INVALID_OPTION',
      `${where}: unknown option "${option}". Known options: ${known.join(', ')}.`,
    );
  },

  invalidArgument(where: string, expected: string, received: unknown): PinoContextError {
    return new AmbientError(
      'ERR_AMBIENT_PINO_INVALID_ARGUMENT',
      `${where}: expected ${expected}, received ${describe(received)}.`,
    );
  },
};
