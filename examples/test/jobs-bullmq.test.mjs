// The BullMQ example end to end: its demo, on the real Redis at 127.0.0.1:6379, prints one group of log lines per
// signup across the web process and the worker process.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serviceSkip } from '../../scripts/services.mjs';
import { demoGroups } from './demo-groups.mjs';

// Skipped only where the service is not reachable on 127.0.0.1, with a loud warning; under CI=true serviceSkip
// throws instead, so CI always runs it.
const skip = await serviceSkip('redis');

// `skip` (above): set only where the service is not reachable; under CI=true serviceSkip throws.
test('examples/jobs-bullmq: every signup is one group of six lines across two processes', { skip }, () => {
  const groups = demoGroups('../jobs-bullmq/demo.mjs');
  assert.equal(groups.length, 3);
  assert.ok(groups.some(([id]) => id === 'campaign-2026-11'));
  for (const [, ...lines] of groups) {
    assert.equal(lines.length, 6);
    const [request] = lines[0].match(/request (\w+)/).slice(1);
    const mail = lines.find((line) => line.includes('welcome mail sent'));
    assert.match(mail, new RegExp(`caused by ${request}`));
    const mailRun = mail.match(/run (\w+)/)[1];
    assert.match(
      lines.find((line) => line.includes('audited')),
      new RegExp(`caused by ${mailRun}`),
    );
  }
});
