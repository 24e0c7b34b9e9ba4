// Builds the package in the current directory to ESM (dist/esm) and CommonJS (dist/cjs) with tsc, each with
// its own declarations, one output file per source module (no bundler).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { start } from './lanes.mjs';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync('dist', { recursive: true, force: true });
// The two builds share only their sources (no incremental state, separate outDirs), so they run side by side:
// on two cores that halves the build. Their output is shown one build after the other, as if run in turn: a type
// error fails the ESM build and is reported once, from it.
const builds = ['tsconfig.build.json', 'tsconfig.build-cjs.json'].map((project) =>
  start(process.execPath, [tsc, '-p', project]),
);
for (const { done } of builds) {
  const { status, output } = await done;
  for (const [stream, chunk] of output) stream.write(chunk);
  if (status !== 0) {
    for (const { child } of builds) child.kill();
    process.exit(status ?? 1);
  }
}
// The package is "type": "module"; this marker makes Node and TypeScript read dist/cjs as CommonJS.
mkdirSync('dist/cjs', { recursive: true });
writeFileSync('dist/cjs/package.json', `${JSON.stringify({ type: 'commonjs' })}\n`);
