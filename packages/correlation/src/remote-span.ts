import type { OtelSpan, OtelSpanContext } from './opentelemetry-globals.js';

/**
 * A span that only names a remote parent, as the API's NonRecordingSpan does: for a producer's traceparent. Its
 * tracestate is left out: the SDK reads a parent's as an object, not as text.
 */
export class RemoteSpan implements OtelSpan {
  readonly #spanContext: OtelSpanContext;

  constructor(spanContext: OtelSpanContext) {
    this.#spanContext = spanContext;
  }

  spanContext(): OtelSpanContext {
    return this.#spanContext;
  }

  setAttribute(_key: string, _value: unknown): this {
    return this;
  }

  setAttributes(_attributes: Record<string, unknown>): this {
    return this;
  }

  addEvent(_name: string, _attributes?: Record<string, unknown>): this {
    return this;
  }

  recordException(_exception: unknown, _time?: unknown): void {}

  setStatus(_status: { code: number; message?: string }): this {
    return this;
  }

  end(): void {}

  isRecording(): boolean {
    return false;
  }
}
