/**
 * This package's version, as in its package.json (test/diagnostics-probe.test.ts keeps the two equal): a copy of
 * @ambient/core says which version it is when another copy loads beside it (@ambient/diagnostics reports two
 * incompatible copies).
 */
export const version = '0.1.0';
