import { lineContext, readOptions, rule, type OptionShape } from '@ambient/core/internal';
import { errors } from './errors.js';
import { keepLineContext, lineContexts } from './line-contexts.js';

export interface GuardWinstonOptions {
  /** The `winston` module (`import winston from 'winston'`): its `Logger` class is the one your loggers are made by. */
  winston: { Logger: { readonly prototype: object } };
}

/** What guardWinston() did; dispose() undoes it. */
export interface WinstonGuard {
  dispose(): void;
}

type Write = (this: unknown, ...args: unknown[]) => unknown;

const optionShape: OptionShape<GuardWinstonOptions> = {
  winston: rule(
    'the winston module (import winston from "winston")',
    (value): value is GuardWinstonOptions['winston'] =>
      typeof value === 'object' &&
      value !== null &&
      typeof (value as { Logger?: unknown }).Logger === 'function' &&
      typeof (value as { Logger: { prototype: { write?: unknown } } }).Logger.prototype.write === 'function',
  ),
};

/**
 * One call at startup: every line takes the context it is logged in at the log call, for correlationFormat() to
 * write. winston is a stream: when a transport falls behind (a file under load, anything sent over a network),
 * the logger buffers lines and formats them later, in whatever context the transport's callback runs in, and a
 * format that reads the context then writes another request's ids (or none). Every line passes through the
 * logger's `write` while its caller is still on the stack (child loggers, `profile`, the exception and rejection
 * handlers too), so that is where it is taken. OpenTelemetry's winston instrumentation lost the trace of queued
 * lines the same way and now takes it there too (open-telemetry/opentelemetry-js-contrib#2010).
 */
export function guardWinston(options: GuardWinstonOptions): WinstonGuard {
  const where = 'guardWinston(options)';
  if (typeof options !== 'object' || options === null) {
    throw errors.invalidArgument(where, 'an options object with the winston module: { winston }', options);
  }
  const { winston } = readOptions(options, optionShape, { where, errors });
  if (winston === undefined) {
    throw errors.invalidOption(where, 'winston', 'the winston module (import winston from "winston")', undefined);
  }
  const prototype = winston.Logger.prototype as { write: Write };
  if (lineContexts.guardedWrite in prototype.write) return { dispose: () => undefined };

  // Defined on Logger.prototype itself: the `write` it inherits belongs to the stream classes, shared with every
  // other stream of the process.
  const inherited = prototype.write;
  function write(this: unknown, info: unknown): unknown {
    if (typeof info === 'object' && info !== null) keepLineContext(info, lineContext());
    // eslint-disable-next-line prefer-rest-params -- the stream's write(chunk, encoding, callback), as called
    return Reflect.apply(inherited, this, arguments);
  }
  Object.defineProperty(write, lineContexts.guardedWrite, { value: true });
  Object.defineProperty(prototype, 'write', { value: write, writable: true, configurable: true });
  lineContexts.guards++;
  let disposed = false;
  return {
    dispose() {
      if (disposed) return;
      disposed = true;
      lineContexts.guards--;
      if (prototype.write === write) delete (prototype as { write?: Write }).write;
    },
  };
}
