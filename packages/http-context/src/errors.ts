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
    ERR_AMBIENT_HTTP_INVALID_OPTION: true;
    ERR_AMBIENT_HTTP_INVALID_ARGUMENT: true;
  }
}

/** Every error @ambient/http-context throws. Match on `error.code`, never on the message. */
export const errors = defineErrors({
  ...usageErrorTemplates({ argument: 'ERR_AMBIENT_HTTP_INVALID_ARGUMENT', option: 'ERR_AMBIENT_HTTP_INVALID_OPTION' }),
});

const readme = 'https://github.com/ambient-js/ambient/tree/main/packages/http-context#errors-and-warnings';

/** Every warning @ambient/http-context emits (`process.on('warning')`, type `AmbientWarning`). */
export const warnings = defineWarnings({
  badGeneratedId: {
    code: 'WARN_AMBIENT_HTTP_BAD_GENERATED_ID',
    once: true,
    message: (received: string) =>
      `generateRequestId returned ${received}, so a UUIDv7 was used: make it return a non-empty string (${readme}).`,
  },
  fetchNotPropagated: {
    code: 'WARN_AMBIENT_HTTP_FETCH_NOT_PROPAGATED',
    once: true,
    message: () =>
      'outgoing propagation is on, but this runtime’s fetch is not undici and publishes no undici:request:create: ' +
      `node:http and node:https calls carry the ids, fetch calls do not; set the headers of a fetch yourself (${readme}).`,
  },
});

export type HttpContextErrorCode = CodesOf<typeof errors>;
export type HttpContextError = AmbientError<HttpContextErrorCode>;
export type HttpContextWarningCode = WarningCodesOf<typeof warnings>;
