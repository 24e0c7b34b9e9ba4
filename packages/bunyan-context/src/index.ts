export {
  correlationStream,
  type BunyanLevel,
  type BunyanStreamEntry,
  type CorrelationStreamEntry,
  type CorrelationStreamOptions,
} from './correlation-stream.js';
export type { BunyanContextError, BunyanContextErrorCode } from './errors.js';
