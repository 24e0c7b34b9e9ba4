// runJob: one run of a job, in a fresh requestContext scope from the root, fed by a carrier.
import {
  AmbientError,
  Variable,
  contextCarrier,
  requestContext,
  runInRoot,
  runJob,
  type RequestStore,
} from '@ambient/core';
import { readCarrier, runReadJob } from '@ambient/core/adapter';
import { newScope, runNewScopeFromRoot, scopeObject, type Context } from '../src/context.js';
import { expectAmbientError } from './helpers/starting-states.js';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';
const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const worker = new Variable<string>({ name: 'worker' });

describe('runJob(job, fn)', () => {
  const producer = () =>
    requestContext.run({ requestId: 'http-1', traceId, spanId, traceFlags: '01', traceState: 'v=1' }, contextCarrier);

  it('gives the run a new request id, the producer as causation and correlation, and its trace', () => {
    const seen = runJob(
      { name: 'send-mail', id: '42', carrier: producer(), system: 'bullmq', queue: 'mail', attempt: 1 },
      () => requestContext.snapshot(),
    );
    expect(seen).toEqual({
      requestId: expect.stringMatching(uuidv7),
      causationId: 'http-1',
      correlationId: 'http-1',
      traceId,
      spanId,
      traceFlags: '01',
      traceState: 'v=1',
      job: { name: 'send-mail', id: '42', system: 'bullmq', queue: 'mail', attempt: 1 },
    });
  });

  it('keeps one correlation id along request -> job -> job, with each causation the previous run', () => {
    const first = producer();
    const [second, firstRunId] = runJob({ name: 'a', carrier: first }, () => [
      contextCarrier(),
      requestContext.get('requestId'),
    ]);
    const third = runJob({ name: 'b', carrier: second }, () => requestContext.snapshot());
    expect(third).toMatchObject({ causationId: firstRunId, correlationId: 'http-1', traceId });
  });

  it('with link, starts no trace of the producer but keeps causation and correlation', () => {
    const seen = runJob({ name: 'tick', carrier: producer(), link: true }, () => requestContext.snapshot());
    expect(seen).toMatchObject({ causationId: 'http-1', correlationId: 'http-1' });
    expect(seen).not.toHaveProperty('traceId');
    expect(seen).not.toHaveProperty('traceState');
  });

  it('without a carrier (or with a foreign one), starts a fresh chain', () => {
    for (const carrier of [undefined, {}, 'garbage', { 'x-request-id': 'a b c' }]) {
      const seen = runJob({ name: 'j', carrier }, () => requestContext.snapshot());
      expect(seen).toEqual({ requestId: expect.stringMatching(uuidv7), job: { name: 'j' } });
    }
  });

  it('runs from the root: nothing of the caller, its request or its variables, is visible inside', () => {
    const seen = worker.run('startup', () =>
      requestContext.run({ requestId: 'enclosing', userId: 'u1' } as never, () =>
        runJob({ name: 'j' }, () => [
          worker.get(),
          requestContext.get('userId' as never),
          requestContext.get('requestId'),
        ]),
      ),
    );
    expect(seen[0]).toBeUndefined();
    expect(seen[1]).toBeUndefined();
    expect(seen[2]).not.toBe('enclosing');
  });

  it('gives every run its own id and scope, even concurrent ones', async () => {
    const ids = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        runJob({ name: `j${i}` }, async () => {
          await new Promise((resolve) => setTimeout(resolve, 20 - i));
          return [requestContext.get('requestId'), requestContext.get('job')?.name];
        }),
      ),
    );
    expect(new Set(ids.map(([id]) => id)).size).toBe(20);
    ids.forEach(([, name], i) => expect(name).toBe(`j${i}`));
  });

  it('uses the generator given, and the default id where it throws or returns nothing usable', () => {
    expect(runJob({ name: 'j', generateRequestId: () => 'custom-1' }, () => requestContext.get('requestId'))).toBe(
      'custom-1',
    );
    for (const generateRequestId of [
      () => '',
      () => 42 as never,
      () => {
        throw new Error('gen');
      },
    ]) {
      expect(runJob({ name: 'j', generateRequestId }, () => requestContext.get('requestId'))).toMatch(uuidv7);
    }
  });

  it('keeps a job id only when it passes the request-id rule', () => {
    expect(runJob({ name: 'j', id: 'repeat:mail:1700000000000' }, () => requestContext.get('job')?.id)).toBe(
      'repeat:mail:1700000000000',
    );
    expect(runJob({ name: 'j', id: '<img src=x>' }, () => requestContext.get('job'))).toEqual({ name: 'j' });
  });

  it('returns what fn returns and passes its errors through, restoring the caller', async () => {
    expect(runJob({ name: 'j' }, () => 7)).toBe(7);
    const boom = new Error('job failed');
    expect(() =>
      runJob({ name: 'j' }, () => {
        throw boom;
      }),
    ).toThrow(boom);
    await expect(runJob({ name: 'j' }, () => Promise.reject(boom))).rejects.toBe(boom);
    expect(requestContext.active).toBe(false);
  });

  it.each([
    ['no job', undefined, 'ERR_AMBIENT_INVALID_ARGUMENT'],
    ['a string', 'mail', 'ERR_AMBIENT_INVALID_ARGUMENT'],
    ['no name', {}, 'ERR_AMBIENT_INVALID_OPTION'],
    ['an empty name', { name: '' }, 'ERR_AMBIENT_INVALID_OPTION'],
    ['a typo', { name: 'j', carier: {} }, 'ERR_AMBIENT_INVALID_OPTION'],
    ['a bad attempt', { name: 'j', attempt: 0 }, 'ERR_AMBIENT_INVALID_OPTION'],
    ['a bad link', { name: 'j', link: 'yes' }, 'ERR_AMBIENT_INVALID_OPTION'],
  ])('refuses %s with a coded error', (_what, job, code) => {
    expectAmbientError(() => runJob(job as never, () => undefined), code);
  });

  it('refuses a callback that is not a function', () => {
    expect(() => runJob({ name: 'j' }, 'nope' as never)).toThrow(AmbientError);
  });
});

describe('runReadJob(job, fields, fn), for adapters that read the carrier themselves', () => {
  const carrier = requestContext.run(
    { requestId: 'http-9', correlationId: 'chain-1', traceId, spanId },
    contextCarrier,
  );

  it('opens the same scope runJob opens from the same carrier', () => {
    const job = { name: 'send', id: '7', system: 'amqp', queue: 'mail', attempt: 2 };
    const fromRunJob = runJob({ ...job, carrier }, () => requestContext.snapshot());
    const fromRead = runReadJob(job, readCarrier(carrier), () => requestContext.snapshot());
    expect(fromRead).toEqual({ ...fromRunJob, requestId: expect.stringMatching(uuidv7) });
    expect(fromRead?.requestId).not.toBe(fromRunJob?.requestId);
    expect(fromRead).toMatchObject({ causationId: 'http-9', correlationId: 'chain-1', traceId, spanId });
  });

  it('honours link with read fields: causation and correlation kept, no trace', () => {
    const fields = readCarrier(carrier);
    const seen = runReadJob({ name: 'send', link: true }, fields, () => requestContext.snapshot());
    expect(seen).toMatchObject({ causationId: 'http-9', correlationId: 'chain-1' });
    expect(seen?.traceId).toBeUndefined();
  });

  it("opens its scope on values no caller holds, of a scope's own shape (nothing inherited)", () => {
    const open = requestContext as unknown as Context<Record<string, unknown>>;
    const [inherited, set, again] = runReadJob({ name: 'send' }, readCarrier(carrier), () => {
      const read = open.get('toString');
      open.set('user', 'u-1');
      return [read, open.get('user'), runReadJob({ name: 'send' }, {}, () => open.get('user'))];
    });
    expect(inherited).toBeUndefined();
    expect(set).toBe('u-1');
    expect(again).toBeUndefined();
  });

  it('runs from the root, whatever the caller had', () => {
    const seen = worker.run('startup', () =>
      requestContext.run({ requestId: 'caller', user: 'u' } as never, () =>
        runReadJob({ name: 'send' }, {}, () => [worker.get(), requestContext.get('requestId')]),
      ),
    );
    expect(seen[0]).toBeUndefined();
    expect(seen[1]).toMatch(uuidv7);
  });
});

describe('runNewScopeFromRoot(context, scope, fn)', () => {
  it('falls back to runInRoot(() => context.run(scope, fn)) for a context made by an older copy', () => {
    // An older @ambient/core that created the shared requestContext first has no runFromRoot method.
    const older: Context<{ requestId: string }> = Object.create(requestContext, {
      [Symbol.for('@ambient/core.Context.runFromRoot.v1')]: { value: undefined },
    }) as Context<{ requestId: string }>;
    const scope = newScope<{ requestId: string }>();
    scope.requestId = 'job';
    const seen = worker.run('caller', () =>
      requestContext.run({ requestId: 'outer' }, () =>
        runNewScopeFromRoot(older, scope, () => [worker.get(), requestContext.snapshot()]),
      ),
    );
    expect(seen).toEqual([undefined, { requestId: 'job' }]);
  });

  it("copies values its method is not asked to adopt, so that the caller's object stays the caller's", () => {
    const runFromRoot = Symbol.for('@ambient/core.Context.runFromRoot.v1');
    type Method = (values: object, fn: () => unknown) => unknown;
    const method = (requestContext as unknown as Record<symbol, Method>)[runFromRoot]!.bind(requestContext);
    const values = { requestId: 'job' };
    method(values, () => requestContext.set('requestId', 'changed'));
    expect(values).toEqual({ requestId: 'job' });
  });

  it('opens the scope on a newScope() itself, and copies anything else handed to the method to adopt', () => {
    const runFromRoot = Symbol.for('@ambient/core.Context.runFromRoot.v1');
    type Method = (values: object, fn: () => unknown, adopt?: boolean) => unknown;
    const method = (requestContext as unknown as Record<symbol, Method>)[runFromRoot]!.bind(requestContext);
    const scope = newScope<RequestStore>();
    scope.requestId = 'job';
    expect(runNewScopeFromRoot(requestContext, scope, () => scopeObject(requestContext))).toBe(scope);
    const open = requestContext as unknown as Context<Record<string, unknown>>;
    // A plain object, with adopt or without it (an older copy of core calls with two arguments).
    for (const adopt of [true, undefined]) {
      const plain = { requestId: 'plain' };
      const [same, inherited] = method(
        plain,
        () => [scopeObject(requestContext) === plain, open.get('toString')],
        adopt,
      ) as unknown[];
      expect([same, inherited]).toEqual([false, undefined]);
    }
    // A newScope handed over without adopt is copied too.
    const notAdopted = newScope<RequestStore>();
    expect(method(notAdopted, () => scopeObject(requestContext))).not.toBe(notAdopted);
  });

  it("gives a newScope() to an older copy's method, which copies it as it always did", () => {
    const given: unknown[][] = [];
    const older = Object.create(requestContext, {
      [Symbol.for('@ambient/core.Context.runFromRoot.v1')]: {
        // The method as it was before newScope: two parameters, and a copy of the values.
        value(this: Context<RequestStore>, values: Partial<RequestStore>, fn: () => unknown, ...rest: unknown[]) {
          given.push(rest);
          return runInRoot(() => this.run(values, fn));
        },
      },
    }) as Context<RequestStore>;
    const scope = newScope<RequestStore>();
    scope.requestId = 'job';
    const seen = runNewScopeFromRoot(older, scope, () => {
      requestContext.set('requestId', 'changed');
      return requestContext.get('requestId');
    });
    expect(seen).toBe('changed');
    expect(scope.requestId).toBe('job');
    expect(given).toEqual([[true]]);
  });
});
