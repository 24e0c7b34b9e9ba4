import Transport from 'winston-transport';
import { MESSAGE } from 'triple-beam';

export interface Line {
  readonly [field: string]: unknown;
}

/**
 * A winston transport that keeps the lines it is handed, as the formatted JSON winston would write, parsed back;
 * `delay` makes it fall behind as a file or a network transport does under load: its callback comes later, so
 * winston buffers what is logged meanwhile and formats it after the log call has returned.
 */
export function sink(options: { delay?: 'immediate'; format?: Transport.TransportStreamOptions['format'] } = {}) {
  const lines: Line[] = [];
  class Sink extends Transport {
    override log(info: Record<string | symbol, unknown>, callback: () => void): void {
      lines.push(JSON.parse(info[MESSAGE] as string) as Line);
      if (options.delay === 'immediate') setImmediate(callback);
      else callback();
    }
  }
  return { transport: new Sink(options.format === undefined ? {} : { format: options.format }), lines };
}
