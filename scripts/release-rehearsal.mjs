// The release, rehearsed: every package is published with lerna to a private registry on 127.0.0.1
// (scripts/registry.mjs), and each package README is then followed as a new user follows it. In an empty folder
// outside the repository, whose .npmrc points the `@ambient` scope at that registry (everything else comes from
// npm), its install line runs as written, then the command the prose gives right before a block, and the block
// runs there, with nothing else installed. Inside the repository (readme-examples.test.mjs) every package is
// hoisted into reach; here a block that imports a package its lines do not name fails, as it would under pnpm's
// strict layout, and one that needs a package npm does not install (an optional peer) fails when it runs.
//
// Type-checking stays with readme-examples.test.mjs: here TypeScript blocks are only stripped of their types.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import {
  installCommands,
  preludes,
  readBlocks,
  readmePaths,
  runnableName,
} from '../examples/test/readme-examples/blocks.mjs';
import { runBlock } from '../examples/test/readme-examples/run.mjs';
import { npmEnvironment, startRegistry } from './registry.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'ambient-release-rehearsal-'));
let registry;

before(async () => {
  registry = await startRegistry();
});
after(async () => {
  await registry?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** The packages a file imports when it runs: what its emitted JavaScript (ESM) imports, builtins left out. */
function importedPackages(javascript) {
  return ts
    .preProcessFile(javascript, true, false)
    .importedFiles.map(({ fileName }) => fileName)
    .filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('node:'))
    .map((specifier) =>
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/'),
    )
    .filter((name) => !builtinModules.includes(name));
}

/** A block as the file it runs as: TypeScript stripped of its types (no type-check here), JavaScript as written. */
function emitted(block) {
  const prelude = block.attributes.fragment === undefined ? '' : `${preludes[block.attributes.fragment].code}\n`;
  const source = `${prelude}${block.code}\n`;
  if (!/^(?:ts|typescript)$/.test(block.lang)) return source;
  const options = {
    module: ts.ModuleKind.ESNext,
    target: ts.ScriptTarget.ES2022,
    // Nest's decorators, as readme-examples.test.mjs compiles them.
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
  };
  return ts.transpileModule(source, { compilerOptions: options }).outputText;
}

/** Runs `command` as a shell would, in `folder`; fails the test with what it wrote when it fails. */
function shell(command, folder) {
  const { status, stdout, stderr } = spawnSync(command, {
    cwd: folder,
    shell: true,
    encoding: 'utf8',
    env: npmEnvironment(),
  });
  assert.equal(status, 0, `\`${command}\` failed in ${folder}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`);
}

/** Folders already installed, by the commands they ran: blocks that follow the same lines share one. */
const installed = new Map();

/** An empty application folder with `commands` run in it, in order, against the rehearsal's registry. */
function folderAfter(commands) {
  const key = commands.join('\n');
  if (installed.has(key)) return installed.get(key);
  const folder = join(work, String(installed.size + 1));
  mkdirSync(folder);
  writeFileSync(join(folder, 'package.json'), '{ "name": "reader-app", "private": true, "type": "module" }\n');
  writeFileSync(join(folder, '.npmrc'), `@ambient:registry=${registry.url}\naudit=false\nfund=false\n`);
  for (const command of commands) shell(command, folder);
  installed.set(key, folder);
  return folder;
}

for (const readme of readmePaths(root).filter((path) => path !== 'README.md')) {
  const { blocks } = readBlocks(root, readme);
  const { install, introducing } = installCommands(root, readme);
  const files = new Map(blocks.filter((block) => block.attributes.file).map((block) => [block.attributes.file, block]));
  describe(readme, () => {
    test('has an install line', () => {
      assert.ok(install.length > 0, `${readme} has no \`npm install\` line in its first shell block`);
    });
    for (const block of blocks.filter((candidate) => candidate.attributes.file === undefined)) {
      const where = `${readme}:${block.line} (\`\`\`${block.info})`;
      test(`${where} runs with only what its install lines name`, async (t) => {
        const commands = [...install, ...(introducing.get(block.line) ?? [])];
        const named = new Set(commands.flatMap((command) => command.packages));
        // The block, and the file= blocks it is run with (`import=`), each as the file it runs as.
        const helpers = (block.attributes.import?.split(',') ?? []).map((name) =>
          [...files.values()].find((file) => runnableName(file.attributes.file) === name),
        );
        const written = [block, ...helpers].map((each) => ({ block: each, javascript: emitted(each) }));
        const unnamed = [
          ...new Set(
            written.flatMap(({ javascript }) => importedPackages(javascript)).filter((name) => !named.has(name)),
          ),
        ];
        assert.deepEqual(
          unnamed,
          [],
          `${where} imports packages its install lines do not name:\n  ${commands.map(({ command }) => command).join('\n  ')}`,
        );
        const folder = folderAfter(commands.map(({ command }) => command));
        for (const { block: each, javascript } of written) {
          const name = runnableName(each.attributes.file ?? `line-${each.line}.mts`);
          writeFileSync(join(folder, name), javascript);
        }
        await runBlock(
          t,
          { ...block, folder, output: join(folder, runnableName(`line-${block.line}.mts`)) },
          `${where}, installed from the rehearsal's registry`,
        );
      });
    }
  });
}
