import { fileURLToPath } from 'node:url';
import { version } from './version.js';

/** A copy of @ambient/core loaded in this process: its version, its folder, and the registry it shares. */
export interface CoreCopy {
  readonly version: string;
  /** The installed package's folder (the ESM and CJS builds of one install are one copy). */
  readonly path: string;
  /** The key of the registry it keeps its storage under: copies with different keys share no context. */
  readonly registry: string;
}

/**
 * Every copy that has loaded, whichever loaded first, kept on a registered symbol of its own (not on the
 * registry: a copy with another registry shape must still find this list). Two installs of the package, each
 * with its own storage, are a bug users only find in production (cedar, better-auth, vercel/workflow).
 */
const kCopies = Symbol.for('@ambient/core.copies');

/** The folder of the package this module was loaded from, read off a stack trace (ESM or CommonJS alike). */
function packageFolder(stack: string | undefined): string {
  // A POSIX path, a Windows one (C:\…) or a file: URL, then :line:column.
  const frame = /\(?((?:file:\/\/\/?)?(?:\/|[A-Za-z]:[\\/])[^():]*?)(?::\d+){2}\)?/.exec(
    stack?.split('\n')[1] ?? '',
  )?.[1];
  if (frame === undefined) return 'unknown';
  const file = frame.startsWith('file://') ? fileURLToPath(frame) : frame;
  // dist/esm/copies.js, dist/cjs/copies.js or src/copies.ts: the package is the folder above.
  return file.replace(/[/\\](?:dist[/\\](?:esm|cjs)|src)[/\\]copies\.[cm]?[jt]s$/, '');
}

/** Adds this copy to the process's list (once per folder) and returns the list. */
export function registerCopy(registry: string): readonly CoreCopy[] {
  const holder = globalThis as { [kCopies]?: CoreCopy[] };
  const copies = (holder[kCopies] ??= []);
  const path = packageFolder(new Error().stack);
  if (!copies.some((copy) => copy.path === path && copy.version === version && copy.registry === registry)) {
    copies.push(Object.freeze({ version, path, registry }));
  }
  return copies;
}

/** Every copy of @ambient/core loaded in this process so far, first first. */
export function loadedCopies(): readonly CoreCopy[] {
  return (globalThis as { [kCopies]?: readonly CoreCopy[] })[kCopies] ?? [];
}
