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
    ERR_AMBIENT_SQS_INVALID_OPTION: true;
    ERR_AMBIENT_SQS_INVALID_ARGUMENT: true;
  }
}

/** Every error @ambient/sqs-context throws. Match on `error.code`, never on the message. */
export const errors = defineErrors({
  ...usageErrorTemplates({ argument: 'ERR_AMBIENT_SQS_INVALID_ARGUMENT', option: 'ERR_AMBIENT_SQS_INVALID_OPTION' }),
});

const readme = 'https://github.com/ambient-js/ambient/tree/main/packages/sqs-context#errors-and-warnings';

/**
 * Every warning @ambient/sqs-context emits (`process.on('warning')`, type `AmbientWarning`). Not `once`:
 * messageAttributes() emits it once per distinct list of ids left out instead (see message-attributes.ts).
 */
export const warnings = defineWarnings({
  attributesFull: {
    code: 'WARN_AMBIENT_SQS_ATTRIBUTES_FULL',
    message: (leftOut: readonly string[], own: number) =>
      `messageAttributes() did not send ${leftOut.join(', ')}: SQS takes at most 10 message attributes and the ` +
      `message has ${own} of its own, which are always kept. Its consumer runs without them (no x-request-id: a ` +
      'fresh chain; no traceparent: a new trace). Leave room for the ids: merge some of your own attributes into ' +
      `one (a JSON string, say) (${readme}).`,
  },
});

export type SqsContextErrorCode = CodesOf<typeof errors>;
export type SqsContextError = AmbientError<SqsContextErrorCode>;
export type SqsContextWarningCode = WarningCodesOf<typeof warnings>;
