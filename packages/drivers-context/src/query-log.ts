import { performance } from 'node:perf_hooks';
import { keptTracingChannel, runInCapturedContext } from '@ambient/core/internal';
import { callerOf, recordCaller, writable, type DriverName } from './channels.js';
import { warnings } from './errors.js';
import { redactStatement } from './statement.js';

/** One query or command, as the opt-in query log reports it: never a parameter value. */
export interface QueryEvent {
  /** OpenTelemetry's `db.system.name`: `mysql`, `postgresql`, `redis`. */
  readonly system: 'mysql' | 'postgresql' | 'redis';
  readonly driver: DriverName;
  /** SQL with every literal as `?` (redactStatement), or a Redis command's name. */
  readonly statement: string;
  readonly durationMs: number;
  readonly failed: boolean;
}

export type QueryListener = (event: QueryEvent) => void;

const kStarted = Symbol('@ambient/drivers-context.started');
const kFailed = Symbol('@ambient/drivers-context.failed');

interface LoggedChannel {
  readonly driver: DriverName;
  readonly name: string;
  readonly system: QueryEvent['system'];
  readonly statement: (message: Record<string, unknown>) => string;
}

const sql = (message: Record<string, unknown>) =>
  typeof message.query === 'string' ? redactStatement(message.query) : '';
const command = (message: Record<string, unknown>) =>
  typeof message.command === 'string' ? message.command.toUpperCase() : '';

const loggedChannels: readonly LoggedChannel[] = [
  { driver: 'mysql2', name: 'mysql2:query', system: 'mysql', statement: sql },
  { driver: 'mysql2', name: 'mysql2:execute', system: 'mysql', statement: sql },
  { driver: 'ioredis', name: 'ioredis:command', system: 'redis', statement: command },
  { driver: 'node-redis', name: 'node-redis:command', system: 'redis', statement: command },
];

/**
 * Calls `listener` once per query or command of `drivers` that publish TracingChannel events, when it has
 * finished, in the context of the code that made it (the context recorded at `start`: a promise's `asyncEnd`
 * runs in whatever settled it), so a pino logger with correlationMixin writes the request's ids. A listener
 * that throws is reported as a warning, never to the driver.
 */
export function logChannelQueries(drivers: ReadonlySet<DriverName>, listener: QueryListener): () => void {
  const undos: Array<() => void> = [];
  for (const logged of loggedChannels) {
    if (!drivers.has(logged.driver)) continue;
    const channel = keptTracingChannel(logged.name);
    const handlers = {
      start(message: unknown) {
        recordCaller(message);
        if (writable(message)) message[kStarted] = performance.now();
      },
      end() {},
      asyncStart() {},
      asyncEnd(message: unknown) {
        report(logged, message, listener);
      },
      error(message: unknown) {
        if (writable(message)) message[kFailed] = true;
      },
    };
    channel.subscribe(handlers);
    undos.push(() => channel.unsubscribe(handlers));
  }
  return () => {
    for (const undo of undos) undo();
  };
}

function report(logged: LoggedChannel, message: unknown, listener: QueryListener): void {
  if (typeof message !== 'object' || message === null) return;
  const fields = message as Record<string | symbol, unknown>;
  const started = fields[kStarted];
  if (typeof started !== 'number') return;
  emit(
    listener,
    {
      system: logged.system,
      driver: logged.driver,
      statement: logged.statement(fields),
      durationMs: performance.now() - started,
      failed: fields[kFailed] === true,
    },
    callerOf(message),
  );
}

/** Calls the listener in `caller`'s context; what it throws becomes a warning, never the driver's problem. */
export function emit(listener: QueryListener, event: QueryEvent, caller: ReturnType<typeof callerOf>): void {
  runInCapturedContext(caller, () => {
    try {
      listener(event);
    } catch (error) {
      warnings.queryListenerThrew(error instanceof Error ? error.name : typeof error);
    }
  });
}
