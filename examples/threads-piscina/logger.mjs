// One pino logger per thread, main and workers alike, each line with the ids of the scope it is written in.
// Threads write to one file, each line in one synchronous append: lines never interleave within a line.
import pino from 'pino';
import { correlationMixin } from '@ambient/pino-context';

export const logger = pino(
  { mixin: correlationMixin(), base: undefined },
  pino.destination({ dest: process.env.LOG_FILE ?? 1, sync: true }),
);
