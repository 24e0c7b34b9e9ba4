import { loadedCopies, type CoreCopy } from '@ambient/core/internal';
import type { Reporter } from './reporter.js';

/**
 * Reports copies of @ambient/core that cannot work together: of different release lines, they share no storage
 * (each warns as it loads, WARN_AMBIENT_INCOMPATIBLE_COPY). Checked when diagnostics start and
 * as each request opens (a copy may load later, with the module that needs it); each set is reported once. An
 * entry that is not a copy's record (the list is a global anyone can write to) is left out.
 */
export function copiesWatcher(reporter: Reporter): () => void {
  let seen = 0;
  return () => {
    const listed = loadedCopies();
    if (listed.length === seen) return;
    seen = listed.length;
    const copies = listed.filter(isCopy);
    if (compatible(copies)) return;
    reporter.report({ kind: 'copies', code: 'WARN_AMBIENT_TWO_COPIES', copies });
  };
}

function isCopy(value: unknown): value is CoreCopy {
  const copy = value as Partial<Record<keyof CoreCopy, unknown>> | null;
  return typeof copy === 'object' && copy !== null && typeof copy.version === 'string' && typeof copy.path === 'string';
}

const major = (version: string): string => {
  const [first, second] = version.split('.');
  // 0.x releases may break in a minor, as semver allows.
  return first === '0' ? `0.${second ?? ''}` : (first ?? version);
};

function compatible(copies: readonly CoreCopy[]): boolean {
  return new Set(copies.map((copy) => major(copy.version))).size <= 1;
}
