// The AsyncContext backend, on a real polyfill: @webfill/async-context installed as globalThis.AsyncContext
// before @ambient/core first loads (node --test gives this file a process of its own).
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import AsyncContext from '@webfill/async-context';

const created = [];
class ObservedVariable extends AsyncContext.Variable {
  constructor(options) {
    super(options);
    created.push(options?.name);
  }
}
globalThis.AsyncContext = { ...AsyncContext, Variable: ObservedVariable };
const { Variable, Snapshot, createContext, requestContext, bindEmitter, AmbientError } = await import('@ambient/core');
const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test('@ambient/core stores its one cell in an AsyncContext.Variable', () => {
  assert.deepEqual(created, ['ambient']);
});

test('Variable run/get, nesting, defaults and restore on throw', () => {
  const variable = new Variable({ defaultValue: 'default' });
  variable.run('outer', () => {
    variable.run('inner', () => assert.equal(variable.get(), 'inner'));
    assert.throws(
      () =>
        variable.run('thrown', () => {
          throw new Error('boom');
        }),
      /boom/,
    );
    assert.equal(variable.get(), 'outer');
  });
  assert.equal(variable.get(), 'default');
});

test('Context and requestContext follow awaits and timers; Snapshot and bindEmitter work', async () => {
  const context = createContext({ name: 'job' });
  const emitter = bindEmitter(new EventEmitter());
  const heard = [];
  await context.run({ id: 'job-1' }, async () => {
    emitter.on('event', () => heard.push(context.get('id')));
    await delay(1);
    context.set('step', 2);
    const snapshot = new Snapshot();
    await requestContext.run({ requestId: 'r' }, async () => {
      await delay(1);
      assert.deepEqual(requestContext.snapshot(), { requestId: 'r' });
      assert.equal(
        snapshot.run(() => requestContext.active),
        false,
      );
    });
    assert.equal(context.get('step'), 2);
  });
  context.run({ id: 'other' }, () => emitter.emit('event'));
  assert.deepEqual(heard, ['job-1']);
});

test('Variable#set throws ERR_AMBIENT_SET_UNSUPPORTED instead of silently misbehaving', () => {
  const variable = new Variable();
  variable.run('value', () => {
    assert.throws(
      () => variable.set('x'),
      (error) => error instanceof AmbientError && error.code === 'ERR_AMBIENT_SET_UNSUPPORTED',
    );
    assert.equal(variable.get(), 'value');
  });
});

test('200 interleaved flows see zero cross-talk', async () => {
  const variable = new Variable();
  const results = await Promise.all(
    Array.from({ length: 200 }, (_, id) =>
      variable.run(id, () =>
        requestContext.run({ requestId: `r${id}` }, async () => {
          await delay(Math.random() * 4);
          return variable.get() === id && requestContext.get('requestId') === `r${id}`;
        }),
      ),
    ),
  );
  assert.equal(results.filter(Boolean).length, 200);
});
