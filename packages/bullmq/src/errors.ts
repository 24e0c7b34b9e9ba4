import type { AmbientError } from '@ambient/core';
import { argumentErrorTemplates, defineErrors, optionErrorTemplates, type CodesOf } from '@ambient/core/adapter';

declare module '@ambient/core' {
  interface AmbientErrorCodes {
    ERR_AMBIENT_BULLMQ_INVALID_OPTION: true;
    ERR_AMBIENT_BULLMQ_INVALID_ARGUMENT: true;
  }
}

/** Every error @ambient/bullmq-context throws. Match on `error.code`, never on the message. */
export const errors = defineErrors({
  ...optionErrorTemplates('ERR_AMBIENT_BULLMQ_INVALID_OPTION'),
  ...argumentErrorTemplates('ERR_AMBIENT_BULLMQ_INVALID_ARGUMENT'),
});

export type BullmqContextErrorCode = CodesOf<typeof errors>;
export type BullmqContextError = AmbientError<BullmqContextErrorCode>;
