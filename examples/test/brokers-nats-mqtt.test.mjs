// The NATS and MQTT example end to end: its demo, on the real NATS server and Mosquitto at 127.0.0.1, prints one
// group of log lines per order across the web process and the consumer process, two brokers and three messages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serviceSkip } from '../../scripts/services.mjs';
import { demoGroups } from './demo-groups.mjs';

// Skipped only where a service is not reachable on 127.0.0.1, with a loud warning; under CI=true serviceSkip
// throws instead, so CI always runs it.
const skip = (await serviceSkip('nats')) || (await serviceSkip('mosquitto'));

// `skip` (above): set only where a service is not reachable; under CI=true serviceSkip throws.
test('examples/brokers-nats-mqtt: every order is one group of six lines across two processes', { skip }, () => {
  const groups = demoGroups('../brokers-nats-mqtt/demo.mjs');
  assert.equal(groups.length, 3);
  assert.ok(groups.some(([id]) => id === 'campaign-2026-11'));
  for (const [, ...lines] of groups) {
    assert.equal(lines.length, 6, lines.join('\n'));
    const [request] = lines[0].match(/request (\w+)/).slice(1);
    const order = lines.find((line) => line.includes('shipment published'));
    assert.match(order, new RegExp(`nats run \\w+, caused by ${request}`));
    assert.match(
      lines.find((line) => line.includes('audit event received')),
      new RegExp(`mqtt run \\w+, caused by ${request}`),
    );
    const orderRun = order.match(/run (\w+)/)[1];
    assert.match(
      lines.find((line) => line.includes('shipment received')),
      new RegExp(`mqtt run \\w+, caused by ${orderRun}`),
    );
  }
});
