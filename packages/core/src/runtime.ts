/** The JavaScript runtime this process runs on. */
export interface Runtime {
  readonly name: 'Node' | 'Bun' | 'Deno' | 'workerd';
  /** Its own version: Bun and Deno also report, in `process.version`, the Node version they implement. */
  readonly version: string;
}

interface RuntimeGlobals {
  Bun?: { version?: unknown };
  Deno?: { version?: { deno?: unknown } };
  navigator?: { userAgent?: unknown };
}

/**
 * Is the global `fetch` undici, whose diagnostics channels outgoing propagation listens on? Node's is, and says so
 * in `process.versions`; Bun's and Deno's are their own.
 */
export function fetchIsUndici(): boolean {
  return process.versions['undici'] !== undefined;
}

/** Which runtime this is, by the global each runtime has of its own; Node by default. */
export function currentRuntime(): Runtime {
  const { Bun, Deno, navigator } = globalThis as RuntimeGlobals;
  if (typeof Bun?.version === 'string') return { name: 'Bun', version: Bun.version };
  if (typeof Deno?.version?.deno === 'string') return { name: 'Deno', version: Deno.version.deno };
  if (navigator?.userAgent === 'Cloudflare-Workers') return { name: 'workerd', version: 'unknown' };
  // A host with AsyncLocalStorage but no `process` is no Node either: its version is not known here.
  return { name: 'Node', version: typeof process === 'object' ? process.versions.node : 'unknown' };
}
