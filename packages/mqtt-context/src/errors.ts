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
    ERR_AMBIENT_MQTT_INVALID_OPTION: true;
    ERR_AMBIENT_MQTT_INVALID_ARGUMENT: true;
  }
}

/** Every error @ambient/mqtt-context throws. Match on `error.code`, never on the message. */
export const errors = defineErrors({
  ...usageErrorTemplates({ argument: 'ERR_AMBIENT_MQTT_INVALID_ARGUMENT', option: 'ERR_AMBIENT_MQTT_INVALID_OPTION' }),
});

const readme = 'https://github.com/ambient-js/ambient/tree/main/packages/mqtt-context#errors-and-warnings';

/** Every warning @ambient/mqtt-context emits (`process.on('warning')`, type `AmbientWarning`). */
export const warnings = defineWarnings({
  notV5: {
    code: 'WARN_AMBIENT_MQTT_NOT_V5',
    once: true,
    message: (protocolVersion: number) =>
      `messageListener() handled a message of an MQTT client connected with protocolVersion ${protocolVersion}: ` +
      'only MQTT 5 has user properties, so its messages carry no ids and each starts a fresh chain. Connect ' +
      `with protocolVersion: 5, publisher and consumer (${readme}).`,
  },
});

export type MqttContextErrorCode = CodesOf<typeof errors>;
export type MqttContextError = AmbientError<MqttContextErrorCode>;
export type MqttContextWarningCode = WarningCodesOf<typeof warnings>;
