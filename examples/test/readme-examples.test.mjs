// Every TypeScript example in the READMEs (the root one and each package's) is type-checked and run, so that
// what a reader copies compiles and does what the README says. The fence's info string says how a block is run
// (readme-examples/blocks.mjs describes the attributes); a block with none must type-check and exit 0.
//
// Blocks are written to node_modules/.cache/ambient-readme-examples/<pid>/<readme>/, where `@ambient/*` (built
// into dist by `npm run build`) and the frameworks resolve from the root node_modules, as .mts files (top-level
// await), type-checked together by one TypeScript program (strict, NodeNext), emitted as .mjs beside them, and
// run one at a time in a child process with a timeout. A server example keeps its `listen(3000)`: a preload
// moves it to a free port on 127.0.0.1, and the test sends it one real request.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { preludes, readBlocks, readmePaths, runnableName } from './readme-examples/blocks.mjs';
import { runBlock } from './readme-examples/run.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// One folder per run: two runs in one checkout (two terminals, a watcher) must not delete each other's files.
const cache = join(root, 'node_modules', '.cache', 'ambient-readme-examples', String(process.pid));

// --- Extract ---------------------------------------------------------------------------------------------------

after(() => rmSync(cache, { recursive: true, force: true }));
const readmes = readmePaths(root).map((readme) => ({ readme, ...readBlocks(root, readme) }));
/** Per TypeScript file written: the block it holds and how many prelude lines come before the block's own. */
const sources = new Map();
for (const { readme, blocks } of readmes) {
  const folder = join(cache, readme.replace(/\/?README\.md$/, '').replaceAll('/', '-') || 'root');
  mkdirSync(folder, { recursive: true });
  // As an application whose package.json says "type": "module": a README's `tracing.ts` compiles to ESM.
  writeFileSync(join(folder, 'package.json'), '{ "type": "module", "private": true }\n');
  for (const block of blocks) {
    const file = block.attributes.file ?? `line-${block.line}.mts`;
    const prelude = block.attributes.fragment === undefined ? '' : `${preludes[block.attributes.fragment].code}\n`;
    block.folder = folder;
    block.source = join(folder, file);
    block.output = join(folder, runnableName(file));
    block.typescript = /\.m?ts$/.test(file);
    writeFileSync(block.source, `${prelude}${block.code}\n`);
    if (block.typescript) sources.set(block.source, { block, preludeLines: prelude.split('\n').length - 1 });
  }
}

// --- Type-check, all blocks in one program ---------------------------------------------------------------------

const { options, errors: optionErrors } = ts.convertCompilerOptionsFromJson(
  {
    strict: true,
    target: 'ES2022',
    lib: ['ES2022'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    typeRoots: [join(root, 'node_modules', '@types')],
    skipLibCheck: true,
    sourceMap: false,
    // Nest's decorators, as a Nest application compiles them; blocks without decorators are unaffected.
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
  },
  cache,
);
const program = ts.createProgram([...sources.keys()], options);
const diagnostics = [...optionErrors, ...ts.getPreEmitDiagnostics(program)];
/** Type errors by TypeScript file, each as `README.md:LINE: message`; errors in no block's file under ''. */
const errorsByFile = new Map();
for (const diagnostic of diagnostics) {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  const written = diagnostic.file === undefined ? undefined : sources.get(diagnostic.file.fileName);
  let text = `${message} (TS${diagnostic.code})`;
  if (written !== undefined && diagnostic.start !== undefined) {
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const inBlock = line - written.preludeLines;
    text =
      inBlock < 0
        ? `prelude "${written.block.attributes.fragment}" of ${written.block.readme}:${written.block.line}: ${text}`
        : `${written.block.readme}:${written.block.line + 1 + inBlock}: ${text}`;
  } else if (diagnostic.file !== undefined) {
    text = `${relative(root, diagnostic.file.fileName)}: ${text}`;
  }
  const key = written === undefined ? '' : diagnostic.file.fileName;
  errorsByFile.set(key, [...(errorsByFile.get(key) ?? []), text]);
}
program.emit();

// --- Tests -------------------------------------------------------------------------------------------------------

test('README code fences are well-formed', () => {
  const problems = [...readmes.flatMap(({ problems }) => problems), ...(errorsByFile.get('') ?? [])];
  if (problems.length > 0) assert.fail(problems.join('\n'));
});

test('every fragment prelude says why its blocks cannot be whole programs, and is used', () => {
  const used = new Set(readmes.flatMap(({ blocks }) => blocks.map((block) => block.attributes.fragment)));
  for (const [name, { reason }] of Object.entries(preludes)) {
    assert.ok(typeof reason === 'string' && reason.length > 20, `prelude "${name}" needs a reason`);
    assert.ok(used.has(name), `prelude "${name}" is used by no README block: remove it`);
  }
});

for (const { readme, blocks } of readmes) {
  describe(readme, () => {
    for (const block of blocks) {
      if (!block.typescript) continue; // a file= helper in JavaScript, run only by other blocks' import=
      const where = `${readme}:${block.line} (\`\`\`${block.info})`;
      const runs = block.attributes.file === undefined;
      test(`${where} type-checks${runs ? ' and runs' : ''}`, async (t) => {
        const errors = errorsByFile.get(block.source) ?? [];
        if (errors.length > 0) assert.fail(`${where} does not type-check:\n  ${errors.join('\n  ')}`);
        if (!runs) return;
        await runBlock(t, block, where);
      });
    }
  });
}
