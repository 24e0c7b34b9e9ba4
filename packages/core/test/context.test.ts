import { createContext, requestContext, Variable, type Context } from '@ambient/core';
import { runFromRoot, scopeObject } from '@ambient/core/internal';
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
    expect(() => requestContext.set('requestId', 'r-1')).toThrow(/requestContext\.run\(\{ requestId \}, fn\)/);
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

describe('scopeObject(context)', () => {
  const tenant = new Variable<string>({ name: 'tenant' });
  let context: Context<Store>;
  beforeEach(() => {
    context = createContext<Store>({ name: 'scopeObjectContext' });
  });

  itFromEveryState('is the object set() writes to, one per scope, and undefined outside any scope', () => {
    expect(scopeObject(context)).toBeUndefined();
    const [scope, again, nested] = tenant.run('acme', () =>
      context.run({ requestId: 'request' }, () => {
        const opened = scopeObject(context)!;
        context.set('user', 'ada');
        return [opened, scopeObject(context), context.run({}, () => scopeObject(context))];
      }),
    );
    expect(scope).toBe(again);
    expect(scope).toEqual({ requestId: 'request', user: 'ada' });
    expect(nested).not.toBe(scope);
  });

  it('copies the values a scope is opened with, so that the caller keeps its own', () => {
    const values = { requestId: 'plain' };
    const opened = context.run(values, () => {
      context.set('user', 'changed');
      return scopeObject(context);
    });
    expect(opened).not.toBe(values);
    expect(values).toEqual({ requestId: 'plain' });
  });

  it('knows nothing of an object that is no context', () => {
    expect(scopeObject({} as Context<Store>)).toBeUndefined();
  });
});

describe('runFromRoot(context, fill, fn)', () => {
  const tenant = new Variable<string>({ name: 'tenant' });
  let context: Context<Store>;
  beforeEach(() => {
    context = createContext<Store>({ name: 'runFromRootContext' });
  });

  itFromEveryState("opens a scope of the values fill writes, from the root: nothing of the caller's is inside", () => {
    const [inside, tenantInside, written] = tenant.run('acme', () =>
      context.run({ requestId: 'caller', user: 'ada' }, () =>
        runFromRoot(
          context,
          (scope) => {
            scope.requestId = 'job';
          },
          () => [context.snapshot(), tenant.get(), scopeObject(context)],
        ),
      ),
    );
    expect(inside).toEqual({ requestId: 'job' });
    expect(tenantInside).toBeUndefined();
    expect(written).toEqual({ requestId: 'job' });
    expect(context.active).toBe(false);
  });

  it("writes into a scope of a scope's own shape, with nothing inherited", () => {
    const inherited = runFromRoot(
      context as unknown as Context<Record<string, unknown>>,
      () => undefined,
      () => context.get('toString' as never),
    );
    expect(inherited).toBeUndefined();
  });

  it('refuses what is no context, with a coded TypeError', () => {
    expectAmbientError(
      () =>
        runFromRoot(
          {} as Context<Store>,
          () => undefined,
          () => 1,
        ),
      'ERR_AMBIENT_INVALID_ARGUMENT',
    );
  });
});
