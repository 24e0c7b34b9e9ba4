// OpenTelemetry's 3.x SDK line (api 1.10, Node >= 22.15), installed apart in tools/opentelemetry-sdk3 because the
// workspace's 2.x packages need api < 1.10; installed on first use, once for all the test files that need it.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { installTool } from '../../../../scripts/install-tool.mjs';

const sdk3Dir = fileURLToPath(new URL('../../../../tools/opentelemetry-sdk3/', import.meta.url));
const [major, minor] = process.versions.node.split('.').map(Number);

/** Why the 3.x cases skip on this Node (below 22.15: the SDK's engines field refuses it), or false. */
export const sdk3Skip =
  major > 22 || (major === 22 && minor >= 15)
    ? false
    : `OpenTelemetry's 3.x SDK needs Node >= 22.15 and this is ${process.version}: its cases run on the Node matrix`;
if (sdk3Skip) console.warn(`\n  SKIPPED: ${sdk3Skip}\n`);

/** The 3.x packages, installed first where an earlier install lacks one. */
export function requireSdk3() {
  const wanted = ['sdk-trace', 'sdk-logs', 'exporter-logs-otlp-http'];
  const installed = () => wanted.every((name) => existsSync(`${sdk3Dir}node_modules/@opentelemetry/${name}`));
  assert.equal(installTool(sdk3Dir, installed), 0, 'npm ci in tools/opentelemetry-sdk3 failed');
  const sdk3Require = createRequire(sdk3Dir);
  return {
    api: sdk3Require('@opentelemetry/api'),
    sdk: sdk3Require('@opentelemetry/sdk-trace'),
    hooks: sdk3Require('@opentelemetry/context-async-hooks'),
    sdkLogs: sdk3Require('@opentelemetry/sdk-logs'),
    exporter: sdk3Require('@opentelemetry/exporter-logs-otlp-http'),
  };
}
