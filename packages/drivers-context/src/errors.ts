import type { AmbientError } from '@ambient/core';
import { defineErrors, defineWarnings, usageErrorTemplates, type CodesOf } from '@ambient/core/internal';

declare module '@ambient/core' {
  interface AmbientErrorCodes {
    ERR_AMBIENT_DRIVERS_INVALID_OPTION: true;
    ERR_AMBIENT_DRIVERS_INVALID_ARGUMENT: true;
    ERR_AMBIENT_DRIVERS_ALREADY_GUARDED: true;
  }
}

/** Every error @ambient/drivers-context throws. Match on `error.code`, never on the message. */
export const errors = defineErrors({
  ...usageErrorTemplates({
    argument: 'ERR_AMBIENT_DRIVERS_INVALID_ARGUMENT',
    option: 'ERR_AMBIENT_DRIVERS_INVALID_OPTION',
  }),
  alreadyGuarded: {
    code: 'ERR_AMBIENT_DRIVERS_ALREADY_GUARDED',
    message: () =>
      'guardDrivers() is already on in this process: call dispose() on the guard it returned before guarding ' +
      'again with other options.',
  },
});

const readme = 'https://github.com/ambient-js/ambient/tree/main/packages/drivers-context#errors-and-warnings';

/** Every warning @ambient/drivers-context emits (`process.on('warning')`, type `AmbientWarning`). */
export const warnings = defineWarnings({
  notPassed: {
    code: 'WARN_AMBIENT_DRIVERS_NOT_PASSED',
    once: true,
    message: (drivers: string) =>
      `Loaded but not passed to guardDrivers(), so its callbacks are not guarded: ${drivers}; pass it, as in guardDrivers({ ${drivers} }) (${readme}).`,
  },
  queryListenerThrew: {
    code: 'WARN_AMBIENT_DRIVERS_QUERY_LISTENER_THREW',
    once: true,
    message: (reason: string) => `The onQuery listener threw (${reason}); the query itself is unaffected (${readme}).`,
  },
});

export type DriversContextErrorCode = CodesOf<typeof errors>;
export type DriversContextError = AmbientError<DriversContextErrorCode>;
