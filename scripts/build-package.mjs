// Builds the package in the current directory to ESM (dist/esm) and CommonJS (dist/cjs) with tsc, each with
// its own declarations. Not a bundler: esbuild (tsup) rewrites top-level `const` to `var` when it bundles, and
// V8 only constant-folds `const` module bindings (figures: benchmarks/README.md#why-the-code-looks-the-way-it-does).
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync('dist', { recursive: true, force: true });
for (const project of ['tsconfig.build.json', 'tsconfig.build-cjs.json']) {
  const { status } = spawnSync(process.execPath, [tsc, '-p', project], { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}
// The package is "type": "module"; this marker makes Node and TypeScript read dist/cjs as CommonJS.
mkdirSync('dist/cjs', { recursive: true });
writeFileSync('dist/cjs/package.json', `${JSON.stringify({ type: 'commonjs' })}\n`);
