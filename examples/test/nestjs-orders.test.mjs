// The NestJS example end to end: its demo, on the real NATS and Redis of 127.0.0.1, prints one group of four lines
// per order across three processes, the microservice's and the processor's runs caused by the order's request.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serviceSkip } from '../../scripts/services.mjs';
import { demoGroups } from './demo-groups.mjs';

// Skipped only where a service is not reachable on 127.0.0.1, with a loud warning; under CI=true serviceSkip
// throws instead, so CI always runs it.
const skip = (await serviceSkip('nats')) ?? (await serviceSkip('redis'));

test('examples/nestjs-orders: every order is one group of four lines across three processes', { skip }, () => {
  const groups = demoGroups('../nestjs-orders/demo.mjs');
  assert.equal(groups.length, 3);
  assert.ok(groups.some(([id]) => id === 'campaign-2026-11'));
  for (const [, ...lines] of groups) {
    assert.equal(lines.length, 4, lines.join('\n'));
    const request = lines[0].match(/request (\w+)/)[1];
    assert.match(
      lines.find((line) => line.includes('reserved')),
      new RegExp(`order-placed run \\w+, caused by ${request}`),
    );
    assert.match(
      lines.find((line) => line.includes('invoice for')),
      new RegExp(`invoice run \\w+, caused by ${request}`),
    );
  }
});
