// The piscina example end to end: its demo prints one group of lines per request, the lines its handler wrote
// in the main thread and the lines its task wrote in a worker thread, each task line caused by that request.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { demoGroups } from './demo-groups.mjs';

test('examples/threads-piscina: every request is one group of its own lines and its task’s, from its thread', () => {
  const groups = demoGroups('../threads-piscina/demo.mjs');
  assert.equal(groups.length, 4);
  const users = [];
  for (const [correlationId, ...lines] of groups) {
    // `  step  user  where`, the columns apart by two spaces or more.
    const columns = lines.map((line) => line.trim().split(/\s{2,}/));
    const steps = columns.map(([step]) => step);
    const user = columns[0][1];
    users.push(user);
    for (const [step, who, where] of columns) {
      assert.equal(who, user);
      if (step === 'hashing' || step === 'hashed')
        assert.match(where, new RegExp(`^thread \\d+, run [\\w-]+, caused by ${correlationId}$`));
      else assert.equal(where, `request ${correlationId}`);
    }
    assert.deepEqual(
      steps,
      user === 'mallory'
        ? ['signing up', 'hashing', 'sign-up failed']
        : ['signing up', 'hashing', 'hashed', 'signed up'],
    );
  }
  assert.deepEqual(users.sort(), ['ada', 'grace', 'linus', 'mallory']);
});
