import type { AmbientError } from '@ambient/core';
import {
  defineErrors,
  defineWarnings,
  usageErrorTemplates,
  type CodesOf,
  type WarningCodesOf,
} from '@ambient/core/internal';

declare module '@ambient/core' {
  interface AmbientErrorCodes {
    ERR_AMBIENT_WINSTON_INVALID_OPTION: true;
    ERR_AMBIENT_WINSTON_INVALID_ARGUMENT: true;
  }
}

/** Every error @ambient/winston-context throws. Match on `error.code`, never on the message. */
export const errors = defineErrors({
  ...usageErrorTemplates({
    argument: 'ERR_AMBIENT_WINSTON_INVALID_ARGUMENT',
    option: 'ERR_AMBIENT_WINSTON_INVALID_OPTION',
  }),
});

const readme = 'https://github.com/ambient-js/ambient/tree/main/packages/winston-context#errors-and-warnings';

/** Every warning @ambient/winston-context emits (`process.on('warning')`, type `AmbientWarning`). */
export const warnings = defineWarnings({
  notGuarded: {
    code: 'WARN_AMBIENT_WINSTON_NOT_GUARDED',
    once: true,
    message: () =>
      'correlationFormat() read the ids when winston formatted the line, which a transport that falls behind ' +
      'delays past the log call, into another request: call guardWinston({ winston }) once at startup ' +
      `(${readme}).`,
  },
  notLoggerFormat: {
    code: 'WARN_AMBIENT_WINSTON_NOT_LOGGER_FORMAT',
    once: true,
    message: () =>
      "correlationFormat() ran on a line the logger did not hand it (a transport's format gets a copy), so it read " +
      "the ids when the transport got to the line, not at the log call: put it in the logger's format " +
      `(${readme}).`,
  },
});

export type WinstonContextErrorCode = CodesOf<typeof errors>;
export type WinstonContextError = AmbientError<WinstonContextErrorCode>;
export type WinstonContextWarningCode = WarningCodesOf<typeof warnings>;
