// @confluentinc/kafka-javascript's KafkaJS-compatible API against this package's types: its install builds or
// downloads a native librdkafka binding, which this machine can do neither of, so tools/confluent-kafka installs
// it with --ignore-scripts and only its types are used. test/confluent/consumer.ts (eachMessage in eachMessage
// and eachBatch, messageHeaders in producer.send) must compile against them, and each of its misuses must not.
// The payload shapes confluent delivers at run time are tested in kafka.test.ts, from its source.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { installTool } from '../../../../scripts/install-tool.mjs';

const require = createRequire(import.meta.url);
const ts = require('typescript');
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..', '..');
const tool = join(root, 'tools', 'confluent-kafka');
const confluent = join(tool, 'node_modules', '@confluentinc', 'kafka-javascript');

test("eachMessage and messageHeaders fit confluent's KafkaJS API types", { timeout: 180_000 }, () => {
  const installed = () => existsSync(join(confluent, 'index.d.ts'));
  assert.equal(installTool(tool, installed, ['--ignore-scripts']), 0, 'npm ci in tools/confluent-kafka failed');
  // test/confluent/tsconfig.json maps the module to tools/confluent-kafka; the editor and eslint read it too.
  const configFile = join(here, '..', 'confluent', 'tsconfig.json');
  const { config } = ts.readConfigFile(configFile, ts.sys.readFile);
  const { options, fileNames } = ts.parseJsonConfigFileContent(config, ts.sys, dirname(configFile));
  const program = ts.createProgram(fileNames, options);
  const diagnostics = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file?.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    return `${diagnostic.file?.fileName}:${(where?.line ?? 0) + 1} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
  assert.deepEqual(diagnostics, []);
});
