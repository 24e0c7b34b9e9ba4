import type { AmbientError } from '@ambient/core';
import { argumentErrorTemplates, defineErrors, optionErrorTemplates, type CodesOf } from '@ambient/core/adapter';

declare module '@ambient/core' {
  interface AmbientErrorCodes {
    ERR_AMBIENT_AMQP_INVALID_OPTION: true;
    ERR_AMBIENT_AMQP_INVALID_ARGUMENT: true;
  }
}

/** Every error @ambient/amqp-context throws. Match on `error.code`, never on the message. */
export const errors = defineErrors({
  ...optionErrorTemplates('ERR_AMBIENT_AMQP_INVALID_OPTION'),
  ...argumentErrorTemplates('ERR_AMBIENT_AMQP_INVALID_ARGUMENT'),
});

export type AmqpContextErrorCode = CodesOf<typeof errors>;
export type AmqpContextError = AmbientError<AmqpContextErrorCode>;
