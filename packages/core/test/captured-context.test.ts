// The internal entry's diagnostics_channel helpers, on a real TracingChannel and traceCallback: what
// @ambient/drivers-context does for mysql2 3.20+, done here by hand on a channel of the test's own.
import { randomUUID } from 'node:crypto';
import { tracingChannel, type TracingChannel } from 'node:diagnostics_channel';
import { requestContext, Variable } from '@ambient/core';
import {
  bindChannelContext,
  captureContext,
  enterCapturedContext,
  runInCapturedContext,
  type CapturedContext,
} from '@ambient/core/internal';
import { itFromEveryState } from './helpers/starting-states.js';

const seen = () => requestContext.get('requestId') ?? 'none';
const kCaller = Symbol('caller');

interface Message {
  [kCaller]?: CapturedContext | undefined;
}

/**
 * A pool in miniature on `channel`: `call(cb)` traces a call whose callback is kept (traceCallback, callback
 * at position 0), `release()` calls it later from wherever it is called, as a pool hands a connection on.
 */
function pool(channel: TracingChannel<object, object>) {
  const kept: Array<() => void> = [];
  return {
    call(callback: (error: null, value: string) => void): void {
      channel.traceCallback(
        (cb: (error: null, value: string) => void) => {
          kept.push(() => cb(null, 'value'));
        },
        0,
        {},
        undefined,
        callback,
      );
    },
    release: () => kept.shift()!(),
  };
}

describe('captureContext() and runInCapturedContext(captured, fn)', () => {
  it('captures nothing outside any scope', () => {
    expect(captureContext()).toBeUndefined();
  });

  itFromEveryState('runs fn in the captured values, restoring the caller’s after it returns or throws', () => {
    const variable = new Variable<string>();
    const captured = variable.run('captured', () => requestContext.run({ requestId: 'A' }, () => captureContext()));
    expect(captured).toBeDefined();
    variable.run('caller', () => {
      expect(runInCapturedContext(captured, () => [variable.get(), seen()])).toEqual(['captured', 'A']);
      expect(variable.get()).toBe('caller');
      expect(() =>
        runInCapturedContext(captured, () => {
          throw new Error('boom');
        }),
      ).toThrow('boom');
      expect([variable.get(), seen()]).toEqual(['caller', 'none']);
    });
  });

  it('runInCapturedContext(undefined, fn) inside a scope runs fn with no values; a Variable#set() there ends with it', () => {
    const variable = new Variable<string>();
    variable.run('caller', () => {
      expect(
        runInCapturedContext(undefined, () => {
          variable.set('inside');
          return variable.get();
        }),
      ).toBe('inside');
      expect(variable.get()).toBe('caller');
    });
  });

  it('runInCapturedContext(undefined, fn) runs fn outside any scope', () => {
    expect(requestContext.run({ requestId: 'caller' }, () => [runInCapturedContext(undefined, seen), seen()])).toEqual([
      'none',
      'caller',
    ]);
  });
});

describe('runInCapturedContext(captured, fn, thisArg, args)', () => {
  itFromEveryState('calls fn with this and the arguments as given, in the captured values, and restores', () => {
    const variable = new Variable<string>();
    const captured = variable.run('captured', () => requestContext.run({ requestId: 'A' }, () => captureContext()));
    const receiver = { name: 'receiver' };
    function report(this: typeof receiver, ...args: unknown[]) {
      return { self: this, args, values: [variable.get(), seen()] };
    }
    variable.run('caller', () => {
      expect(runInCapturedContext(captured, report, receiver, [1, 'two'])).toEqual({
        self: receiver,
        args: [1, 'two'],
        values: ['captured', 'A'],
      });
      expect(variable.get()).toBe('caller');
      expect(() =>
        runInCapturedContext(
          captured,
          () => {
            throw new Error('boom');
          },
          undefined,
          [],
        ),
      ).toThrow('boom');
      expect([variable.get(), seen()]).toEqual(['caller', 'none']);
    });
  });

  itFromEveryState('takes an arguments object as it comes, as a bound listener hands it on', () => {
    const captured = requestContext.run({ requestId: 'A' }, () => captureContext());
    function forward(..._args: unknown[]) {
      // eslint-disable-next-line prefer-rest-params -- the arguments object is what a forwarding function passes
      return runInCapturedContext(captured, (...args: unknown[]) => [args, seen()], undefined, arguments);
    }
    expect(forward('a', 2)).toEqual([['a', 2], 'A']);
  });

  it('with the captured values already current, a set() inside does not outlive the call', () => {
    const variable = new Variable<string>();
    variable.run('outer', () => {
      const captured = captureContext();
      runInCapturedContext(captured, () => variable.set('inner'), undefined, []);
      expect(variable.get()).toBe('outer');
    });
  });

  it('runInCapturedContext(undefined, ...) runs fn outside any scope', () => {
    expect(
      requestContext.run({ requestId: 'caller' }, () => [runInCapturedContext(undefined, seen, undefined, []), seen()]),
    ).toEqual(['none', 'caller']);
  });
});

describe('bindChannelContext(channel, transform) on a real TracingChannel', () => {
  let channel: TracingChannel<object, object>;
  const undos: Array<() => void> = [];
  const record = (message: unknown) => {
    (message as Message)[kCaller] = captureContext();
  };
  beforeEach(() => {
    channel = tracingChannel(`ambient-test:${randomUUID()}`);
  });
  afterEach(() => {
    for (const undo of undos.splice(0)) undo();
  });

  it('without it, a kept callback runs in whoever released; with it, in the caller recorded at start', () => {
    const unguarded = pool(channel);
    let saw: string | undefined;
    requestContext.run({ requestId: 'B' }, () => unguarded.call(() => (saw = seen())));
    requestContext.run({ requestId: 'A' }, () => unguarded.release());
    expect(saw).toBe('A');

    channel.start.subscribe(record);
    undos.push(() => channel.start.unsubscribe(record));
    const unbind = bindChannelContext(channel.asyncStart, (message) => (message as Message)[kCaller]);
    expect(unbind).toBeInstanceOf(Function);
    undos.push(unbind!);
    const guarded = pool(channel);
    const saws: Array<readonly [string, string]> = [];
    for (const id of ['B1', 'B2', 'B3']) {
      requestContext.run({ requestId: id }, () => guarded.call((_, value) => saws.push([id, `${seen()} ${value}`])));
    }
    const releaser: string[] = [];
    requestContext.run({ requestId: 'A' }, () => {
      for (let index = 0; index < 3; index++) {
        guarded.release();
        // The releaser has its own values back after each callback.
        releaser.push(seen());
      }
    });
    expect(saws).toEqual([
      ['B1', 'B1 value'],
      ['B2', 'B2 value'],
      ['B3', 'B3 value'],
    ]);
    expect(releaser).toEqual(['A', 'A', 'A']);
  });

  it('the releaser gets its values back when the callback throws', () => {
    channel.start.subscribe(record);
    undos.push(() => channel.start.unsubscribe(record));
    undos.push(bindChannelContext(channel.asyncStart, (message) => (message as Message)[kCaller])!);
    const guarded = pool(channel);
    requestContext.run({ requestId: 'B' }, () =>
      guarded.call(() => {
        throw new Error(`thrown in ${seen()}`);
      }),
    );
    requestContext.run({ requestId: 'A' }, () => {
      expect(() => guarded.release()).toThrow('thrown in B');
      expect(seen()).toBe('A');
    });
  });

  it('a transform returning undefined runs the callback outside any scope', () => {
    undos.push(bindChannelContext(channel.asyncStart, () => undefined)!);
    const guarded = pool(channel);
    let saw: string | undefined;
    requestContext.run({ requestId: 'B' }, () => guarded.call(() => (saw = seen())));
    requestContext.run({ requestId: 'A' }, () => guarded.release());
    expect(saw).toBe('none');
  });

  it('bound on start, it sets the context the traced call itself runs in (what opens a socket runs in none)', () => {
    const recorded: Array<string | undefined> = [];
    undos.push(
      bindChannelContext(channel.start, (message) => {
        recorded.push(seen());
        (message as Message)[kCaller] = captureContext();
        return undefined;
      })!,
    );
    undos.push(bindChannelContext(channel.asyncStart, (message) => (message as Message)[kCaller])!);
    let inside: string | undefined;
    let callback: string | undefined;
    const kept: Array<() => void> = [];
    requestContext.run({ requestId: 'B' }, () =>
      channel.traceCallback(
        (cb: () => void) => {
          inside = seen();
          kept.push(cb);
        },
        0,
        {},
        undefined,
        () => (callback = seen()),
      ),
    );
    requestContext.run({ requestId: 'A' }, () => kept[0]!());
    expect([recorded, inside, callback]).toEqual([['B'], 'none', 'B']);
  });

  it('the function it returns unbinds: callbacks run in whoever released again', () => {
    channel.start.subscribe(record);
    undos.push(() => channel.start.unsubscribe(record));
    const unbind = bindChannelContext(channel.asyncStart, (message) => (message as Message)[kCaller])!;
    expect(channel.asyncStart.hasSubscribers).toBe(true);
    unbind();
    expect(channel.asyncStart.hasSubscribers).toBe(false);
    const guarded = pool(channel);
    let saw: string | undefined;
    requestContext.run({ requestId: 'B' }, () => guarded.call(() => (saw = seen())));
    requestContext.run({ requestId: 'A' }, () => guarded.release());
    expect(saw).toBe('A');
  });

  it('does not reach promise continuations, which keep their caller already (tracePromise)', async () => {
    undos.push(bindChannelContext(channel.asyncStart, () => undefined)!);
    undos.push(bindChannelContext(channel.asyncEnd, () => undefined)!);
    let resolve!: (value: string) => void;
    const pending = requestContext.run({ requestId: 'B' }, () =>
      channel.tracePromise(() => new Promise<string>((done) => (resolve = done)), {}).then(() => seen()),
    );
    requestContext.run({ requestId: 'A' }, () => resolve('value'));
    expect(await pending).toBe('B');
  });
});

describe('enterCapturedContext(captured) between a traced call’s start and end', () => {
  const kReturnTo = Symbol('return to');
  /** Subscribers that run each traced call of `channel` outside any scope and go back at its `end`. */
  function detach(channel: TracingChannel<object, object>) {
    const handlers = {
      start: (message: unknown) => {
        (message as Record<symbol, unknown>)[kReturnTo] = captureContext();
        expect(enterCapturedContext(undefined)).toBe(true);
      },
      end: (message: unknown) => {
        enterCapturedContext((message as Record<symbol, CapturedContext | undefined>)[kReturnTo]);
      },
    };
    channel.start.subscribe(handlers.start);
    channel.end.subscribe(handlers.end);
    return () => {
      channel.start.unsubscribe(handlers.start);
      channel.end.unsubscribe(handlers.end);
    };
  }

  it('the call runs outside any scope; the caller’s values are back after it returns or throws', () => {
    const channel = tracingChannel<object, object>(`ambient-test:${randomUUID()}`);
    const undo = detach(channel);
    const variable = new Variable<string>();
    try {
      const seenInside: string[] = [];
      const after = variable.run('caller', () =>
        requestContext.run({ requestId: 'A' }, () => {
          channel.traceSync(() => seenInside.push(`${seen()} ${variable.get() ?? 'none'}`), {});
          expect(() =>
            channel.traceSync(() => {
              seenInside.push(seen());
              throw new Error('boom');
            }, {}),
          ).toThrow('boom');
          return [seen(), variable.get()];
        }),
      );
      expect(seenInside).toEqual(['none none', 'none']);
      expect(after).toEqual(['A', 'caller']);
    } finally {
      undo();
    }
  });

  it('what a traced call starts (a timer, a promise reaction) runs outside any scope; the caller goes on in its own', async () => {
    const channel = tracingChannel<object, object>(`ambient-test:${randomUUID()}`);
    const undo = detach(channel);
    try {
      const seenLater: string[] = [];
      const after = await requestContext.run({ requestId: 'A' }, async () => {
        const timer = new Promise<void>((resolve) =>
          channel.traceCallback(
            (done: () => void) => {
              setTimeout(() => {
                seenLater.push(`timer ${seen()}`);
                done();
              }, 1);
            },
            0,
            {},
            undefined,
            resolve,
          ),
        );
        await channel.tracePromise(async () => {
          await Promise.resolve();
          seenLater.push(`promise ${seen()}`);
        }, {});
        await timer;
        return seen();
      });
      expect(seenLater.sort()).toEqual(['promise none', 'timer none']);
      expect(after).toBe('A');
    } finally {
      undo();
    }
  });
});
