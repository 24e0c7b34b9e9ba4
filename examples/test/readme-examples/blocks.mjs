// The code blocks of the READMEs, read the way readme-examples.test.mjs checks them. The fence's info string
// says how a block is checked; most blocks need nothing beyond their language:
//
//   ```ts                      type-checked, then run: it must exit 0 within the timeout.
//   ```ts path=/users/42       a server: it may listen on any port (it gets a free one on 127.0.0.1), and the
//                              test sends one GET to this path, which must answer 2xx with an x-request-id
//                              header whose id the example wrote to stdout or into the response body.
//   ```ts import=a.mjs,b.js    run with `node --import ./a.mjs --import ./b.js`, as the README tells its reader
//                              to; each name is a file= block of the same README (a .ts one by its .js name).
//   ```js file=register.mjs    not run by itself: saved as register.mjs beside the README's other blocks (in a
//   ```ts file=tracing.ts      folder whose package.json says "type": "module"); a TypeScript one is type-checked
//                              and compiled to tracing.js.
//   ```ts servers=own          starts and closes servers of its own (a test suite run against a library): run to
//                              completion, within a longer timeout, like a plain block.
//   ```ts fragment=listener    a piece of a program: the named prelude below is put before it. Keep these rare;
//                              a block a reader copies should run as it is.
//   ```ts needs=redis          runs against a service of this machine (see `services` below): skipped with a
//                              loud message where it is not reachable, a failure under CI=true.
//
// A line comment `// Prints: TEXT` (Node's own docs' convention) says the block writes TEXT as a whole line of
// stdout, where `…` stands for any text; the test checks every such line.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { services } from '../../../scripts/services.mjs';

/**
 * Every README whose blocks are checked: the root one and each package's, so a new package's README is
 * covered the day it appears. Add other paths here (relative to the repository root) to cover them too.
 */
export function readmePaths(root) {
  const packages = readdirSync(join(root, 'packages'))
    .sort()
    .map((folder) => join('packages', folder, 'README.md'))
    .filter((path) => existsSync(join(root, path)));
  return ['README.md', ...packages];
}

/**
 * What a `fragment=NAME` block is missing, and why it may not be a whole program. The code is real (it runs),
 * so a fragment is type-checked and run like any other block.
 */
export const preludes = {
  conformanceHarness: {
    reason:
      'the second conformance example reuses the harness of the first, and running the full universal and ' +
      "ambient profiles takes minutes (every Ambient adapter's conformance test runs them): here the registrar " +
      'records the cases it is given instead of running them',
    code: [
      "import { nodeHttpHarness, describeConformance } from '@ambient/conformance';",
      "const harness = nodeHttpHarness({ name: 'a library', wrap: (listener) => listener, readRequestId: () => undefined });",
      'const registered: string[] = [];',
      'const registrar = {',
      '  describe: (_name: string, body: () => void) => body(),',
      '  it: (name: string) => void registered.push(name),',
      '  afterAll: () => undefined,',
      '};',
      "process.on('exit', () => { if (registered.length === 0) process.exitCode = 1; });",
    ].join('\n'),
  },
  listener: {
    reason:
      'httpContext(listener, { propagation }) on its own: a listener that called the allowed origin would need ' +
      "the reader's own service there, which the test cannot reach; any listener shows the option as well",
    code: [
      "import type { IncomingMessage, ServerResponse } from 'node:http';",
      "const listener = (_req: IncomingMessage, res: ServerResponse) => res.end('ok');",
    ].join('\n'),
  },
};

const typescript = new Set(['ts', 'typescript']);
const javascript = new Set(['js', 'javascript', 'mjs']);
const known = new Set(['path', 'import', 'file', 'fragment', 'servers', 'needs']);

/** `ts path=/users/42 import=register.mjs` → { lang: 'ts', attributes: { path: '/users/42', … } } */
export function parseInfo(info) {
  const [lang = '', ...words] = info.trim().split(/\s+/);
  const attributes = {};
  for (const word of words) {
    const [key, ...value] = word.split('=');
    attributes[key] = value.length === 0 ? true : value.join('=');
  }
  return { lang: lang.toLowerCase(), attributes };
}

/**
 * The fenced code blocks of one README that the test checks: TypeScript blocks, and blocks of any language
 * saved as a file for them. `line` is the 1-based line of the opening fence. Problems in the info strings
 * (an unknown attribute, an unknown prelude, a `file=` without a name) are returned, not thrown, so the test
 * names them all.
 */
export function readBlocks(root, readme) {
  const lines = readFileSync(join(root, readme), 'utf8').split('\n');
  const blocks = [];
  const problems = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(lines[index]);
    if (open === null) continue;
    const [, fence, info] = open;
    const body = [];
    let end = index + 1;
    while (end < lines.length && !new RegExp(`^ {0,3}${fence[0]}{${fence.length},}\\s*$`).test(lines[end])) {
      body.push(lines[end]);
      end++;
    }
    const block = { readme, line: index + 1, info: info.trim(), ...parseInfo(info), code: body.join('\n') };
    index = end;
    const where = `${readme}:${block.line}`;
    const isTypeScript = typescript.has(block.lang);
    if (!isTypeScript && block.attributes.file === undefined) continue; // sh, json, tables of output…
    if (!isTypeScript && !javascript.has(block.lang)) {
      problems.push(`${where}: only ts and js blocks can be saved with file=, not ${block.lang || 'untagged'} ones`);
      continue;
    }
    for (const key of Object.keys(block.attributes)) {
      if (!known.has(key)) problems.push(`${where}: unknown attribute "${key}" in \`\`\`${block.info}`);
    }
    for (const key of ['path', 'import', 'file', 'fragment']) {
      const value = block.attributes[key];
      if (value === true || value === '') problems.push(`${where}: ${key}= needs a value in \`\`\`${block.info}`);
    }
    if (block.attributes.needs !== undefined && services[block.attributes.needs] === undefined) {
      problems.push(`${where}: needs= names a service of ${Object.keys(services).join(', ')}: \`\`\`${block.info}`);
    }
    if (block.attributes.servers !== undefined && block.attributes.servers !== 'own') {
      problems.push(`${where}: servers= can only be "own": \`\`\`${block.info}`);
    }
    if (typeof block.attributes.path === 'string' && !block.attributes.path.startsWith('/')) {
      problems.push(`${where}: path= must start with "/": \`\`\`${block.info}`);
    }
    if (typeof block.attributes.fragment === 'string' && preludes[block.attributes.fragment] === undefined) {
      problems.push(
        `${where}: fragment=${block.attributes.fragment} names no prelude in examples/test/readme-examples/blocks.mjs`,
      );
    }
    const file = block.attributes.file;
    const extensions = isTypeScript ? /^[\w.-]+\.m?ts$/ : /^[\w.-]+\.m?js$/;
    if (typeof file === 'string' && !extensions.test(file)) {
      problems.push(
        `${where}: file=${file} must be a plain file name ending in ${isTypeScript ? '.ts or .mts' : '.js or .mjs'}`,
      );
    }
    blocks.push(block);
  }
  const named = blocks.map((block) => block.attributes.file).filter((file) => typeof file === 'string');
  for (const file of new Set(named)) {
    if (named.indexOf(file) !== named.lastIndexOf(file)) problems.push(`${readme}: two blocks say file=${file}`);
  }
  const files = new Set(named.map(runnableName));
  for (const block of blocks) {
    if (typeof block.attributes.import !== 'string') continue;
    for (const name of block.attributes.import.split(',')) {
      if (!files.has(name)) problems.push(`${readme}:${block.line}: import=${name} names no file= block of ${readme}`);
    }
  }
  return { blocks, problems };
}

/** The name node runs a file by: a TypeScript file's compiled one (`tracing.ts` → `tracing.js`). */
export function runnableName(file) {
  return file.replace(/\.ts$/, '.js').replace(/\.mts$/, '.mjs');
}

/** `// Prints: TEXT` comments of a block: the lines it must write to stdout, as patterns where … is any text. */
export function expectedLines(code) {
  const expected = [];
  for (const line of code.split('\n')) {
    const comment = /\/\/\s*Prints:\s?(.*)$/.exec(line);
    if (comment === null) continue;
    const text = comment[1].trimEnd();
    const pattern = text
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    expected.push({ text, pattern: new RegExp(`^${pattern}$`) });
  }
  return expected;
}

/**
 * The `npm install` commands a README gives its reader: `install`, the lines of its first shell block that start
 * with `npm install` (the install line under its title), and `introducing`, by the 1-based line of a code fence,
 * the commands in inline code spans of the prose between that fence and the one before it, like "(`npm install
 * croner`):" before a block. A trailing `# comment` is left out, as the shell leaves it out. Each command comes
 * with the names of the packages it installs.
 */
export function installCommands(root, readme) {
  const lines = readFileSync(join(root, readme), 'utf8').split('\n');
  const command = (text) => {
    const written = text.replace(/\s+#.*$/, '').trim();
    const packages = written
      .split(/\s+/)
      .slice(2)
      .filter((word) => !word.startsWith('-'))
      .map((word) => word.replace(/(.)@.*$/, '$1'));
    return { command: written, packages };
  };
  const install = [];
  const introducing = new Map();
  let prose = [];
  let fence;
  let shellBlocks = 0;
  for (const [index, line] of lines.entries()) {
    const marker = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (fence === undefined && marker !== null) {
      fence = { marker: marker[1], shell: /^(?:sh|shell|bash|console)?\s*$/.test(marker[2]) };
      if (fence.shell) shellBlocks++;
      if (prose.length > 0) introducing.set(index + 1, prose);
      prose = [];
    } else if (
      fence !== undefined &&
      marker !== null &&
      marker[1].startsWith(fence.marker) &&
      marker[2].trim() === ''
    ) {
      fence = undefined;
    } else if (fence !== undefined) {
      if (fence.shell && shellBlocks === 1 && /^\s*npm (?:install|i) /.test(line)) install.push(command(line));
    } else {
      for (const span of line.matchAll(/`(npm (?:install|i) [^`]+)`/g)) prose.push(command(span[1]));
    }
  }
  return { install, introducing };
}
