import { createContext, requestContext, Variable, type Context } from '@ambient/core';
import { newScope, runNewScope, scopeObject, type NewScope } from '../src/context.js';
import { delay, expectAmbientError, itFromEveryState } from './helpers/starting-states.js';

interface Store {
  requestId: string;
  user?: string;
  attempts?: number;
}

describe('createContext', () => {
  let context: Context<Store>;
  beforeEach(() => {
    context = createContext<Store>({ name: 'testContext' });
  });

  it('is named, "context" by default', () => {
    expect(context.name).toBe('testContext');
    expect(createContext().name).toBe('context');
  });

  itFromEveryState('outside a scope: inactive, get/has/snapshot answer undefined/false, require and set throw', () => {
    expect(context.active).toBe(false);
    expect(context.get('requestId')).toBeUndefined();
    expect(context.has('requestId')).toBe(false);
    expect(context.snapshot()).toBeUndefined();
    expectAmbientError(() => context.require('requestId'), 'ERR_AMBIENT_NO_SCOPE');
    expectAmbientError(() => context.set('user', 'mallory'), 'ERR_AMBIENT_NO_SCOPE');
    expect(context.get('user')).toBeUndefined();
  });

  itFromEveryState('run opens a scope with the given values, passes args and returns the result', () => {
    const result = context.run(
      { requestId: 'r1' },
      (suffix: string) => {
        expect(context.active).toBe(true);
        expect(context.get('requestId')).toBe('r1');
        expect(context.require('requestId')).toBe('r1');
        expect(context.has('requestId')).toBe(true);
        expect(context.has('user')).toBe(false);
        return `done${suffix}`;
      },
      '!',
    );
    expect(result).toBe('done!');
    expect(context.active).toBe(false);
  });

  itFromEveryState('an empty scope is still a scope', () => {
    context.run({}, () => {
      expect(context.active).toBe(true);
      context.set('requestId', 'late');
      expect(context.get('requestId')).toBe('late');
    });
  });

  itFromEveryState(
    'set writes into the scope: every continuation sees it, including ones created earlier',
    async () => {
      await context.run({ requestId: 'r1' }, async () => {
        const earlier = new Promise((resolve) => setTimeout(() => resolve(context.get('user')), 2));
        const earlierThen = Promise.resolve().then(() => context.get('user'));
        context.set('user', 'ada');
        expect(await Promise.all([earlier, earlierThen])).toEqual(['ada', 'ada']);
      });
    },
  );

  itFromEveryState('a value set after an await in one continuation is visible to the rest of the scope', async () => {
    await context.run({ requestId: 'r1' }, async () => {
      await (async () => {
        await delay(1);
        context.set('user', 'set deep down');
      })();
      expect(context.get('user')).toBe('set deep down');
    });
  });

  itFromEveryState('a nested run inherits a copy: its writes stay inside, the outer scope is untouched', () => {
    context.run({ requestId: 'outer', user: 'ada' }, () => {
      context.run({ attempts: 1 }, () => {
        expect(context.snapshot()).toEqual({ requestId: 'outer', user: 'ada', attempts: 1 });
        context.set('user', 'grace');
        expect(context.get('user')).toBe('grace');
      });
      expect(context.get('user')).toBe('ada');
      expect(context.has('attempts')).toBe(false);
      context.run({ requestId: 'override' }, () => expect(context.get('requestId')).toBe('override'));
      expect(context.get('requestId')).toBe('outer');
    });
  });

  itFromEveryState('run restores the outer scope when fn throws', () => {
    context.run({ requestId: 'outer' }, () => {
      expect(() =>
        context.run({ requestId: 'inner' }, () => {
          throw new Error('boom');
        }),
      ).toThrow('boom');
      expect(context.get('requestId')).toBe('outer');
    });
    expect(context.active).toBe(false);
  });

  itFromEveryState('require throws ERR_AMBIENT_MISSING_VALUE for a key with no value; null is a value', () => {
    const nullable = createContext<{ maybe: string | null }>({ name: 'nullable' });
    nullable.run({}, () => {
      expectAmbientError(() => nullable.require('maybe'), 'ERR_AMBIENT_MISSING_VALUE');
      nullable.set('maybe', null);
      expect(nullable.require('maybe')).toBeNull();
      expect(nullable.has('maybe')).toBe(true);
    });
  });

  itFromEveryState('snapshot is a frozen copy that later writes do not change', () => {
    context.run({ requestId: 'r1' }, () => {
      const copy = context.snapshot();
      expect(Object.isFrozen(copy)).toBe(true);
      context.set('user', 'later');
      expect(copy).toEqual({ requestId: 'r1' });
      expect(() => {
        (copy as { requestId: string }).requestId = 'mutated';
      }).toThrow(TypeError);
    });
  });

  itFromEveryState('keys that name Object.prototype members are plain data, never inherited or polluting', () => {
    const odd = createContext<Record<string, unknown>>({ name: 'odd' });
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "constructor": "c"}') as Record<string, unknown>;
    odd.run(hostile, () => {
      expect(odd.get('toString')).toBeUndefined();
      expect(odd.has('hasOwnProperty')).toBe(false);
      expect(odd.get('constructor')).toBe('c');
      expect(odd.get('__proto__')).toEqual({ polluted: true });
      expect(odd.get('polluted')).toBeUndefined();
      odd.set('__proto__', 'plain');
      expect(odd.get('__proto__')).toBe('plain');
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  itFromEveryState('two contexts are independent', () => {
    const other = createContext<{ requestId: string }>({ name: 'other' });
    context.run({ requestId: 'mine' }, () => {
      expect(other.active).toBe(false);
      other.run({ requestId: 'theirs' }, () => expect(context.get('requestId')).toBe('mine'));
    });
  });

  it('rejects bad arguments with ERR_AMBIENT_INVALID_ARGUMENT', () => {
    expectAmbientError(() => context.run(null as never, () => undefined), 'ERR_AMBIENT_INVALID_ARGUMENT');
    expectAmbientError(() => context.run('r1' as never, () => undefined), 'ERR_AMBIENT_INVALID_ARGUMENT');
    expectAmbientError(() => context.run({}, undefined as never), 'ERR_AMBIENT_INVALID_ARGUMENT');
  });

  it('rejects bad options with ERR_AMBIENT_INVALID_OPTION, unknown keys included', () => {
    expectAmbientError(() => createContext({ name: 1 as never }), 'ERR_AMBIENT_INVALID_OPTION');
    expectAmbientError(() => createContext('name' as never), 'ERR_AMBIENT_INVALID_OPTION');
    expectAmbientError(() => createContext({ nmae: 'jobs' } as never), 'ERR_AMBIENT_INVALID_OPTION');
    expectAmbientError(() => createContext({ name: 'jobs', defaultValue: 1 } as never), 'ERR_AMBIENT_INVALID_OPTION');
    expect(createContext({ name: 'jobs' }).name).toBe('jobs');
    expect(createContext(undefined).name).toBe('context');
  });

  it('tells how to open a scope of this context, not of an HTTP adapter', () => {
    const jobs = createContext<{ jobId: string }>({ name: 'jobs' });
    expect(() => jobs.set('jobId', 'j-1')).toThrow(/jobs\.run\(values, fn\)/);
    expect(() => jobs.set('jobId', 'j-1')).not.toThrow(/expressContext/);
    expect(() => requestContext.set('requestId', 'r-1')).toThrow(/expressContext\(\)/);
  });
});

describe('requestContext', () => {
  itFromEveryState('is a Context named requestContext holding requestId, traceId and spanId', () => {
    expect(requestContext.name).toBe('requestContext');
    requestContext.run({ requestId: 'req-1', traceId: '4bf92f3577b34da6a3ce929d0e0e4736' }, () => {
      requestContext.set('spanId', '00f067aa0ba902b7');
      expect(requestContext.snapshot()).toEqual({
        requestId: 'req-1',
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        spanId: '00f067aa0ba902b7',
      });
    });
  });

  it('is inactive outside any request, and set throws with a code', () => {
    expect(requestContext.active).toBe(false);
    expectAmbientError(() => requestContext.set('requestId', 'x'), 'ERR_AMBIENT_NO_SCOPE');
  });
});

describe('runNewScope(context, scope, fn)', () => {
  const tenant = new Variable<string>({ name: 'tenant' });
  let context: Context<Store>;
  beforeEach(() => {
    context = createContext<Store>({ name: 'runNewScopeContext' });
  });

  itFromEveryState('opens the scope on a newScope() itself, keeping every other value of the frame', () => {
    const scope = newScope<Store>();
    scope.requestId = 'request';
    const [opened, tenantInside, values] = tenant.run('acme', () =>
      runNewScope(context, scope, () => [scopeObject(context), tenant.get(), context.snapshot()]),
    );
    expect(opened).toBe(scope);
    expect([tenantInside, values]).toEqual(['acme', { requestId: 'request' }]);
    expect(context.active).toBe(false);
  });

  itFromEveryState("inside an outer scope, copies the outer scope's values and then its own, as run() does", () => {
    const scope = newScope<Store>();
    scope.requestId = 'inner';
    const outer = { requestId: 'outer', user: 'ada' };
    const [opened, inner, outerAfter] = context.run(outer, () => {
      const [openedInside, values] = runNewScope(context, scope, () => {
        context.set('user', 'changed inside');
        return [scopeObject(context), context.snapshot()];
      });
      return [openedInside, values, context.snapshot()];
    });
    expect(opened).not.toBe(scope);
    expect(inner).toEqual({ requestId: 'inner', user: 'changed inside' });
    expect(outerAfter).toEqual(outer);
    expect(scope).toEqual({ requestId: 'inner' });
  });

  it('copies an object that newScope() did not make, so that the caller keeps its own', () => {
    const plain = { requestId: 'plain' } as NewScope<Store>;
    const opened = runNewScope(context, plain, () => {
      context.set('user', 'changed');
      return scopeObject(context);
    });
    expect(opened).not.toBe(plain);
    expect(plain).toEqual({ requestId: 'plain' });
  });

  it("rejects what run() rejects, with run()'s typed errors", () => {
    expectAmbientError(
      () => runNewScope(context, null as unknown as NewScope<Store>, () => undefined),
      'ERR_AMBIENT_INVALID_ARGUMENT',
    );
    expectAmbientError(
      () => runNewScope(context, newScope<Store>(), 'not a function' as unknown as () => unknown),
      'ERR_AMBIENT_INVALID_ARGUMENT',
    );
    expect(context.active).toBe(false);
  });

  it("gives a context made by an older copy, which has no such method, to that context's run()", () => {
    // An older @ambient/core that created the shared context first: its run() copies, in or out of a scope.
    const older: Context<Store> = Object.create(context, {
      [Symbol.for('@ambient/core.Context.runNewScope.v1')]: { value: undefined },
    }) as Context<Store>;
    const outside = newScope<Store>();
    outside.requestId = 'outside';
    const openedOutside = runNewScope(older, outside, () => {
      context.set('user', 'set inside');
      return scopeObject(context);
    });
    expect(openedOutside).not.toBe(outside);
    expect(outside).toEqual({ requestId: 'outside' });
    const inside = newScope<Store>();
    inside.requestId = 'inner';
    const inherited = context.run({ requestId: 'outer', user: 'ada' }, () =>
      runNewScope(older, inside, () => context.snapshot()),
    );
    expect(inherited).toEqual({ requestId: 'inner', user: 'ada' });
  });
});
