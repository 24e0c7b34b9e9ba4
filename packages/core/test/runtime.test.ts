// Which runtime this is, told by the global each runtime has of its own (Bun, Deno), or by workerd's user agent.
import { currentRuntime, fetchIsUndici } from '../src/runtime.js';

const globals = globalThis as Record<string, unknown>;

function on<R>(name: string, value: unknown, fn: () => R): R {
  const before = Object.getOwnPropertyDescriptor(globalThis, name);
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  try {
    return fn();
  } finally {
    if (before === undefined) delete globals[name];
    else Object.defineProperty(globalThis, name, before);
  }
}

describe('currentRuntime()', () => {
  it('is Node with its own version by default', () => {
    expect(currentRuntime()).toEqual({ name: 'Node', version: process.versions.node });
  });

  it('tells Bun, Deno and workerd by their globals, and ignores a global that only looks like one', () => {
    expect(on('Bun', { version: '1.4.5' }, currentRuntime)).toEqual({ name: 'Bun', version: '1.4.5' });
    expect(on('Deno', { version: { deno: '2.9.6' } }, currentRuntime)).toEqual({ name: 'Deno', version: '2.9.6' });
    expect(on('navigator', { userAgent: 'Cloudflare-Workers' }, currentRuntime)).toEqual({
      name: 'workerd',
      version: 'unknown',
    });
    expect(on('Bun', { version: 1 }, currentRuntime).name).toBe('Node');
    expect(on('Deno', {}, currentRuntime).name).toBe('Node');
  });
});

describe('fetchIsUndici()', () => {
  it("is true on Node, whose process.versions names undici, and false where it does not (Bun's, Deno's fetch)", () => {
    expect(fetchIsUndici()).toBe(true);
    const versions = Object.getOwnPropertyDescriptor(process, 'versions')!;
    const { undici: _undici, ...withoutUndici } = process.versions;
    Object.defineProperty(process, 'versions', { value: withoutUndici, configurable: true });
    try {
      expect(fetchIsUndici()).toBe(false);
    } finally {
      Object.defineProperty(process, 'versions', versions);
    }
  });
});
