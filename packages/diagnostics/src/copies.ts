import { loadedCopies, type CoreCopy } from '@ambient/core/adapter';
import type { Reporter } from './reporter.js';

/**
 * Reports copies of @ambient/core that cannot work together: a different registry (they share no storage) or
 * a different major version. Checked when diagnostics start and as each request opens (a copy may load later,
 * with the module that needs it); each incompatible set is reported once.
 */
export function copiesWatcher(reporter: Reporter): () => void {
  let seen = 0;
  return () => {
    const copies = loadedCopies();
    if (copies.length === seen) return;
    seen = copies.length;
    if (compatible(copies)) return;
    reporter.report({ kind: 'copies', code: 'WARN_AMBIENT_TWO_COPIES', copies: [...copies] });
  };
}

const major = (version: string): string => {
  const [first, second] = version.split('.');
  // 0.x releases may break in a minor, as semver allows.
  return first === '0' ? `0.${second ?? ''}` : (first ?? version);
};

function compatible(copies: readonly CoreCopy[]): boolean {
  return (
    new Set(copies.map((copy) => copy.registry)).size <= 1 &&
    new Set(copies.map((copy) => major(copy.version))).size <= 1
  );
}
