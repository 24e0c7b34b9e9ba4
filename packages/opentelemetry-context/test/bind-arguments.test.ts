// A bound function and a bound emitter's listener get the `this` and the arguments they are called with, by
// each of the two ways a bound function enters its context: alone in the process, a manager applies the
// target in its captured context directly (the path every event of an instrumented request takes); beside a
// second AmbientContextManager, it also restores that manager's context as the caller has it. A file of its
// own: managers are registered weakly per process, so in a file that makes one per case the first path would
// only run once the earlier ones were collected.
import { EventEmitter } from 'node:events';
import { ROOT_CONTEXT, createContextKey } from '@opentelemetry/api';
import { requestContext } from '@ambient/core';
import { AmbientContextManager } from '@ambient/opentelemetry-context';

const key = createContextKey('bind-arguments');
const ctx = ROOT_CONTEXT.setValue(key, 'bound');
const manager = new AmbientContextManager().enable();
const seen = () => ({ requestId: requestContext.get('requestId'), active: manager.active() });

function checkFunction(): void {
  const receiver = { name: 'receiver' };
  function report(this: unknown, ...args: unknown[]) {
    return { self: this, args, ...seen() };
  }
  const bound = requestContext.run({ requestId: 'r1' }, () => manager.bind(ctx, report));
  expect(bound.call(receiver, 1, 'two')).toEqual({ self: receiver, args: [1, 'two'], requestId: 'r1', active: ctx });
  expect(requestContext.run({ requestId: 'r2' }, () => bound.apply(receiver, [3]))).toEqual({
    self: receiver,
    args: [3],
    requestId: 'r1',
    active: ctx,
  });
}

function checkListener(): void {
  const emitter = manager.bind(ctx, new EventEmitter());
  const heard: unknown[] = [];
  requestContext.run({ requestId: 'r1' }, () =>
    emitter.on('data', function (this: unknown, ...args: unknown[]) {
      heard.push({ self: this === emitter, args, ...seen() });
    }),
  );
  requestContext.run({ requestId: 'r2' }, () => emitter.emit('data', 'chunk', 2));
  emitter.emit('data');
  expect(heard).toEqual([
    { self: true, args: ['chunk', 2], requestId: 'r1', active: ctx },
    { self: true, args: [], requestId: 'r1', active: ctx },
  ]);
}

describe('the one AmbientContextManager in the process', () => {
  it('a function bound inside a request gets the this and the arguments it is called with', checkFunction);
  it('a listener added inside a request to a bound emitter gets the emitter and the arguments', checkListener);
});

describe('beside a second AmbientContextManager', () => {
  let second: AmbientContextManager;
  beforeAll(() => {
    second = new AmbientContextManager().enable();
  });
  afterAll(() => {
    second.disable();
  });

  it('a function bound inside a request gets the this and the arguments it is called with', checkFunction);
  it('a listener added inside a request to a bound emitter gets the emitter and the arguments', checkListener);
});

afterAll(() => {
  manager.disable();
});
