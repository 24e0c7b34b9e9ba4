// The demo: runs traffic.mjs (the app with diagnostics on, and its traffic). Its log lines go to stdout, the
// diagnostics' warnings to stderr, as Node prints any warning.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const traffic = fileURLToPath(new URL('./traffic.mjs', import.meta.url));
const { status } = spawnSync(process.execPath, ['--expose-gc', traffic], { stdio: 'inherit' });
process.exit(status ?? 1);
