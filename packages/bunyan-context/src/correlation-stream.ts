import { EOL } from 'node:os';
import { Writable } from 'node:stream';
import type { CorrelationFieldNames } from '@ambient/core';
import {
  addLineFields,
  lineContext,
  readOptions,
  resolveFieldNames,
  rule,
  rules,
  type OptionShape,
} from '@ambient/core/internal';
import { errors } from './errors.js';

/** A bunyan level: a name or a number. */
export type BunyanLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | number;

const levelNames: readonly unknown[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

/** A bunyan stream entry, as `createLogger({ streams: [...] })` takes it, writing to a stream you made. */
export interface BunyanStreamEntry {
  /** Where the lines go: a writable (`process.stdout`, `fs.createWriteStream(path, { flags: 'a' })`, a rotating file). */
  stream: { write(chunk: never): unknown };
  /** `'stream'` (default): the stream gets JSON lines; `'raw'`: it gets the record objects. */
  type?: 'stream' | 'raw';
  level?: BunyanLevel;
  name?: string;
}

export interface CorrelationStreamOptions {
  /** Field names in the record; `false` leaves a field out. */
  fields?: CorrelationFieldNames;
}

/** What correlationStream() returns: a raw bunyan stream entry, the level and name of the one it wraps. */
export interface CorrelationStreamEntry {
  readonly type: 'raw';
  readonly stream: NodeJS.WritableStream;
  readonly level?: BunyanLevel;
  readonly name?: string;
}

const writable = rule(
  'a stream with a write() method',
  (value): value is BunyanStreamEntry['stream'] =>
    typeof value === 'object' && value !== null && typeof (value as { write?: unknown }).write === 'function',
);
const entryShape: OptionShape<BunyanStreamEntry> = {
  stream: writable,
  type: rule(
    "'stream' or 'raw' (for a file, pass fs.createWriteStream(path, { flags: 'a' }) as the stream)",
    (value): value is 'stream' | 'raw' => value === 'stream' || value === 'raw',
  ),
  level: rule(
    "a bunyan level: 'trace', 'debug', 'info', 'warn', 'error', 'fatal' or a number",
    (value): value is BunyanLevel => typeof value === 'number' || levelNames.includes(value),
  ),
  name: rules.string,
};
const streamOptions: OptionShape<CorrelationStreamOptions> = { fields: rules.object };

/**
 * A bunyan stream that writes every record with `requestId`, `correlationId`, `causationId`, `traceId`, `spanId`
 * and `job` (those the scope has) to the stream it wraps, the same fields correlationMixin() writes for pino; a
 * record logged outside any scope gets none, and a field the record already has (the call's own, a child's) is
 * kept. bunyan hands every record to every stream during the log call, so the ids are the caller's; wrap each
 * stream of a logger, and child loggers share them.
 *
 *     const log = bunyan.createLogger({ name: 'api', streams: [correlationStream({ stream: process.stdout })] });
 */
export function correlationStream(
  entry: BunyanStreamEntry,
  options: CorrelationStreamOptions = {},
): CorrelationStreamEntry {
  const where = 'correlationStream(entry, options)';
  if (typeof entry !== 'object' || entry === null) {
    throw errors.invalidArgument(where, 'a bunyan stream entry: { stream, level?, type? }', entry);
  }
  const {
    stream: target,
    type = 'stream',
    level,
    name,
  } = readOptions(entry, entryShape, { where, errors, path: 'entry' });
  if (target === undefined) {
    throw errors.invalidOption(where, 'entry.stream', 'a stream with a write() method', undefined);
  }
  const names = resolveFieldNames(readOptions(options, streamOptions, { where, errors }).fields, where, errors);
  const write = target.write.bind(target) as (chunk: unknown) => unknown;

  const stream = new Writable({
    objectMode: true,
    // bunyan calls write() during the log call, and nothing is queued ahead of it (this callback is synchronous),
    // so _write runs on the caller's stack, in its context.
    write(record: Record<string, unknown>, _encoding, callback) {
      // bunyan hands the same record to every raw stream: the fields go on a copy, each stream's own.
      const context = lineContext();
      let line = record;
      if (context !== undefined) {
        line = { ...record };
        addLineFields(line, names, context);
      }
      write(type === 'raw' ? line : stringify(line) + EOL);
      callback();
    },
  });
  return { type: 'raw', stream, ...(level === undefined ? {} : { level }), ...(name === undefined ? {} : { name }) };
}

/** A record as bunyan writes it: JSON, with circular references replaced rather than failing the line. */
function stringify(record: object): string {
  try {
    return JSON.stringify(record);
  } catch {
    const seen = new WeakSet<object>();
    return JSON.stringify(record, (_key, value: unknown) => {
      if (typeof value !== 'object' || value === null) return value;
      if (seen.has(value)) return '[Circular]';
      seen.add(value);
      return value;
    });
  }
}
