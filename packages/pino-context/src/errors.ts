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
    ERR_AMBIENT_PINO_INVALID_OPTION: true;
    ERR_AMBIENT_PINO_INVALID_ARGUMENT: true;
  }
}

/** Every error @ambient/pino-context throws. Match on `error.code`, never on the message. */
export const errors = defineErrors({
  ...usageErrorTemplates({ argument: 'ERR_AMBIENT_PINO_INVALID_ARGUMENT', option: 'ERR_AMBIENT_PINO_INVALID_OPTION' }),
});

const readme = 'https://github.com/ambient-js/ambient/tree/main/packages/pino-context#errors-and-warnings';

/** Every warning @ambient/pino-context emits (`process.on('warning')`, type `AmbientWarning`). */
export const warnings = defineWarnings({
  pinoHttpOutsideScope: {
    code: 'WARN_AMBIENT_PINO_HTTP_OUTSIDE_SCOPE',
    once: true,
    message: () =>
      "pino-http asked for a request id outside any request scope, so its ids will not match Ambient's: mount " +
      `the Ambient adapter (expressContext(), koaContext(), ...) before pino-http (${readme}).`,
  },
});

export type PinoContextErrorCode = CodesOf<typeof errors>;
export type PinoContextError = AmbientError<PinoContextErrorCode>;
export type PinoContextWarningCode = WarningCodesOf<typeof warnings>;
