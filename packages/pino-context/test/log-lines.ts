import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

export interface LogLine {
  readonly [field: string]: unknown;
  readonly msg?: string;
}

/** A real stream for pino to write to, and the lines it wrote, parsed back, plus the raw text of each. */
export function logSink(): { stream: Writable; lines: LogLine[]; raw: string[] } {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  let pending = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      pending += chunk.toString('utf8');
      let newline: number;
      while ((newline = pending.indexOf('\n')) !== -1) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        raw.push(line);
        lines.push(JSON.parse(line) as LogLine);
      }
      callback();
    },
  });
  return { stream, lines, raw };
}

/**
 * Waits until `condition()` holds, or ten seconds have passed; the assertions after it say what is missing. For
 * lines written from a response's `finish` listener, which may run after the client has the answer: a fixed
 * pause is too short on a loaded machine.
 */
export async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await sleep(5);
}
