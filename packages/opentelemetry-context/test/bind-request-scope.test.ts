// What AmbientContextManager's bind() keeps of Ambient's own values, beyond what OpenTelemetry's tests check:
// requestContext as it was where a function was bound or a listener added, with the bound OpenTelemetry
// context active (expressjs/body-parser#422, nodejs/node#41285).
import { EventEmitter } from 'node:events';
import { ROOT_CONTEXT, createContextKey } from '@opentelemetry/api';
import { requestContext } from '@ambient/core';
import { AmbientContextManager } from '@ambient/opentelemetry-context';

const key = createContextKey('bind-request-scope');
const ctx = ROOT_CONTEXT.setValue(key, 'bound');

describe('AmbientContextManager#bind and requestContext', () => {
  let manager: AmbientContextManager;
  beforeEach(() => {
    manager = new AmbientContextManager().enable();
  });
  afterEach(() => {
    manager.disable();
  });

  const seen = () => ({ requestId: requestContext.get('requestId'), active: manager.active() });

  it('a function bound inside a request sees that request and the context, wherever it is called', () => {
    const bound = requestContext.run({ requestId: 'r1' }, () => manager.bind(ctx, seen));
    expect(bound()).toEqual({ requestId: 'r1', active: ctx });
    expect(requestContext.run({ requestId: 'r2' }, bound)).toEqual({ requestId: 'r1', active: ctx });
    expect(seen()).toEqual({ requestId: undefined, active: ROOT_CONTEXT });
  });

  it('a function bound outside any request keeps its caller’s request and sets only the context', () => {
    const bound = manager.bind(ctx, seen);
    expect(requestContext.run({ requestId: 'r2' }, bound)).toEqual({ requestId: 'r2', active: ctx });
    expect(bound()).toEqual({ requestId: undefined, active: ctx });
  });

  it('a value set inside the bound function ends with it', () => {
    const bound = requestContext.run({ requestId: 'r1' }, () =>
      manager.bind(ctx, () => {
        requestContext.set('traceId', '4bf92f3577b34da6a3ce929d0e0e4736');
        return requestContext.get('traceId');
      }),
    );
    expect(bound()).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(requestContext.run({ requestId: 'r3' }, () => [bound(), requestContext.get('traceId')])).toEqual([
      '4bf92f3577b34da6a3ce929d0e0e4736',
      undefined,
    ]);
  });

  it('after disable() and enable(), a function bound before still makes its context active', () => {
    const bound = requestContext.run({ requestId: 'r1' }, () => manager.bind(ctx, seen));
    expect(bound()).toEqual({ requestId: 'r1', active: ctx });
    manager.disable();
    manager.enable();
    expect(bound()).toEqual({ requestId: 'r1', active: ctx });
    expect(seen()).toEqual({ requestId: undefined, active: ROOT_CONTEXT });
  });

  it.each([0, 1, 2, 3, 4, 6])(
    'a bound function keeps the length of one with %i parameters, inside and outside a request',
    (length) => {
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- a function declared with `length` parameters
      const target = Function(...Array.from({ length }, (_, i) => `p${i}`), 'return arguments.length') as (
        ...args: unknown[]
      ) => number;
      const inside = requestContext.run({ requestId: 'r1' }, () => manager.bind(ctx, target));
      const outside = manager.bind(ctx, target);
      expect([inside.length, outside.length]).toEqual([length, length]);
      expect([inside(1, 2, 3, 4, 5, 6, 7), outside()]).toEqual([7, 0]); // every argument passes, whatever the length
    },
  );

  it('an emitter bound before the request opened: a listener added inside it sees that request', () => {
    const emitter = manager.bind(ctx, new EventEmitter());
    const results: unknown[] = [];
    requestContext.run({ requestId: 'r1' }, () => emitter.on('data', () => results.push(seen())));
    requestContext.run({ requestId: 'r2' }, () => emitter.emit('data'));
    emitter.emit('data');
    expect(results).toEqual([
      { requestId: 'r1', active: ctx },
      { requestId: 'r1', active: ctx },
    ]);
  });
});

// Two AmbientContextManagers share Ambient's one frame; OpenTelemetry's own managers each have an
// AsyncLocalStorage. A function one of ours binds inside a request must still leave the other's context as the
// caller has it, as two of OpenTelemetry's managers would.
describe('two AmbientContextManagers inside a request', () => {
  const mine = ROOT_CONTEXT.setValue(key, 'mine');
  const theirs = ROOT_CONTEXT.setValue(key, 'theirs');
  let manager: AmbientContextManager;
  let other: AmbientContextManager;
  beforeEach(() => {
    manager = new AmbientContextManager().enable();
    other = new AmbientContextManager().enable();
  });
  afterEach(() => {
    manager.disable();
    other.disable();
  });

  const both = () => [manager.active(), other.active(), requestContext.get('requestId')];

  it('other.bind(ctx2, manager.bind(ctx1, fn)) runs fn with both contexts and the binding request', () => {
    const inner = requestContext.run({ requestId: 'r1' }, () => manager.bind(mine, both));
    expect(other.bind(theirs, inner)()).toEqual([mine, theirs, 'r1']);
    expect(requestContext.run({ requestId: 'r2' }, () => other.with(theirs, inner))).toEqual([mine, theirs, 'r1']);
    expect(inner()).toEqual([mine, ROOT_CONTEXT, 'r1']);
  });

  it('a function bound while the other manager had a context does not bring that context back', () => {
    const inner = requestContext.run({ requestId: 'r1' }, () => other.with(theirs, () => manager.bind(mine, both)));
    expect(inner()).toEqual([mine, ROOT_CONTEXT, 'r1']);
  });

  it('the same for listeners of an emitter each manager bound', () => {
    const emitter = other.bind(theirs, manager.bind(mine, new EventEmitter()));
    const heard: unknown[] = [];
    requestContext.run({ requestId: 'r1' }, () => emitter.on('data', () => heard.push(both())));
    emitter.emit('data');
    expect(heard).toEqual([[mine, theirs, 'r1']]);
  });

  it("a third manager's context is the caller's too, whatever it was where the function was bound", () => {
    const third = new AmbientContextManager();
    const all = () => [...both(), third.active()];
    const inner = requestContext.run({ requestId: 'r1' }, () => third.with(theirs, () => manager.bind(mine, all)));
    expect(other.bind(theirs, inner)()).toEqual([mine, theirs, 'r1', ROOT_CONTEXT]);
    expect(third.with(mine, inner)).toEqual([mine, ROOT_CONTEXT, 'r1', mine]);
  });
});

describe('AmbientContextManager: the shape of what bind() returns, and attach()', () => {
  const manager = new AmbientContextManager();

  it('a bound function keeps length and takes the name "wrapped <name>", inside and outside a request', () => {
    const handler = function onError(_error: unknown, _req: unknown, _res: unknown, _next: unknown) {};
    for (const bound of [
      manager.bind(ctx, handler),
      requestContext.run({ requestId: 'r' }, () => manager.bind(ctx, handler)),
    ]) {
      expect([bound.length, bound.name]).toEqual([4, 'wrapped onError']);
      expect(() => new (bound as unknown as new () => unknown)()).toThrow(TypeError);
    }
  });

  it('a listener of a bound emitter keeps its length', () => {
    const emitter = manager.bind(ctx, new EventEmitter());
    emitter.on('data', (_chunk: unknown, _more: unknown) => undefined);
    expect(emitter.rawListeners('data')[0]!.length).toBe(2);
  });

  it('attach() makes a context active until the token is disposed (the full cases: test/smoke/attach-cases.mjs)', () => {
    const token = manager.attach(ctx);
    expect(manager.active()).toBe(ctx);
    token.dispose();
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });
});
