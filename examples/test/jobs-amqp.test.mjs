// The RabbitMQ example end to end: its demo, on the real broker at 127.0.0.1:5672, prints one group of log lines
// per order across the web process and the consumer process.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serviceSkip } from '../../scripts/services.mjs';
import { demoGroups } from './demo-groups.mjs';

// Skipped only where the service is not reachable on 127.0.0.1, with a loud warning; under CI=true serviceSkip
// throws instead, so CI always runs it.
const skip = await serviceSkip('rabbitmq');

// `skip` (above): set only where the service is not reachable; under CI=true serviceSkip throws.
test('examples/jobs-amqp: every order is one group of six lines across two processes', { skip }, () => {
  const groups = demoGroups('../jobs-amqp/demo.mjs');
  assert.equal(groups.length, 3);
  assert.ok(groups.some(([id]) => id === 'campaign-2026-11'));
  for (const [, ...lines] of groups) {
    assert.equal(lines.length, 6);
    const [request] = lines[0].match(/request (\w+)/).slice(1);
    const order = lines.find((line) => line.includes('invoice published'));
    assert.match(order, new RegExp(`orders run \\w+, caused by ${request}`));
    const orderRun = order.match(/run (\w+)/)[1];
    assert.match(
      lines.find((line) => line.includes('invoice sent')),
      new RegExp(`invoices run \\w+, caused by ${orderRun}`),
    );
  }
});
