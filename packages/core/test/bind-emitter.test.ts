import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { bindEmitter, Variable } from '@ambient/core';
import { expectAmbientError, itFromEveryState } from './helpers/starting-states.js';

const variable = new Variable<string>({ name: 'bind-emitter' });

/** Registers with `register` inside "registration", emits inside "emit", and returns what each call saw. */
function heardIn(emitter: EventEmitter, register: (listener: () => void) => void, emits = 1): string[] {
  const heard: string[] = [];
  variable.run('registration', () => register(() => heard.push(variable.get() ?? 'none')));
  variable.run('emit', () => {
    for (let i = 0; i < emits; i++) emitter.emit('event');
  });
  return heard;
}

describe('bindEmitter', () => {
  itFromEveryState('on, addListener and prependListener run listeners in the context of registration', () => {
    const emitter = bindEmitter(new EventEmitter());
    expect(heardIn(emitter, (listener) => emitter.on('event', listener), 2)).toEqual(['registration', 'registration']);
    emitter.removeAllListeners();
    expect(heardIn(emitter, (listener) => emitter.addListener('event', listener))).toEqual(['registration']);
    emitter.removeAllListeners();
    expect(heardIn(emitter, (listener) => emitter.prependListener('event', listener))).toEqual(['registration']);
  });

  itFromEveryState('once and prependOnceListener run once, in the context of registration', () => {
    const emitter = bindEmitter(new EventEmitter());
    expect(heardIn(emitter, (listener) => emitter.once('event', listener), 3)).toEqual(['registration']);
    expect(heardIn(emitter, (listener) => emitter.prependOnceListener('event', listener), 3)).toEqual(['registration']);
    expect(emitter.listenerCount('event')).toBe(0);
  });

  itFromEveryState('a listener registered outside any value sees none, whoever emits', () => {
    const emitter = bindEmitter(new EventEmitter());
    let heard: string | undefined = 'unset';
    emitter.on('event', () => (heard = variable.get()));
    variable.run('emit', () => emitter.emit('event'));
    expect(heard).toBeUndefined();
  });

  itFromEveryState(
    'a listener emitted in its own context runs in it, and a set() inside ends with the listener',
    () => {
      // The same frame is current at emit (as for Node's own `end` listener on a request): nothing is entered,
      // so the listener must end the set() itself.
      const emitter = bindEmitter(new EventEmitter());
      const heard: string[] = [];
      variable.run('registration', () => {
        emitter.on('event', () => {
          heard.push(variable.get() ?? 'none');
          variable.set('changed by the listener');
        });
        emitter.emit('event');
        heard.push(variable.get() ?? 'none');
        expect(() => emitter.emit('event')).not.toThrow();
        heard.push(variable.get() ?? 'none');
      });
      expect(heard).toEqual(['registration', 'registration', 'registration', 'registration']);
    },
  );

  itFromEveryState('a listener that throws in its own context leaves the context as it was', () => {
    const emitter = bindEmitter(new EventEmitter());
    variable.run('registration', () => {
      emitter.on('event', () => {
        variable.set('changed before the throw');
        throw new Error('listener failed');
      });
      expect(() => emitter.emit('event')).toThrow('listener failed');
      expect(variable.get()).toBe('registration');
    });
  });

  it('a listener added and emitted outside any scope runs as any code there: set() throws ERR_AMBIENT_NO_SCOPE', () => {
    const emitter = bindEmitter(new EventEmitter());
    emitter.on('event', () => variable.set('no scope to change'));
    expectAmbientError(() => emitter.emit('event'), 'ERR_AMBIENT_NO_SCOPE');
    expect(variable.get()).toBeUndefined();
  });

  it('listeners keep this, arguments and return values', () => {
    const emitter = bindEmitter(new EventEmitter());
    let seen: unknown[] = [];
    emitter.on('event', function (this: unknown, ...args: unknown[]) {
      seen = [this, ...args];
    });
    emitter.emit('event', 1, 'two');
    expect(seen).toEqual([emitter, 1, 'two']);
  });

  it('off and removeListener with the original function remove the bound listener', () => {
    const emitter = bindEmitter(new EventEmitter());
    const calls: string[] = [];
    const onEvent = () => calls.push('on');
    const onceEvent = () => calls.push('once');
    const prependedOnce = () => calls.push('prependOnce');
    variable.run('r', () => {
      emitter.on('event', onEvent);
      emitter.once('event', onceEvent);
      emitter.prependOnceListener('event', prependedOnce);
    });
    expect(emitter.listenerCount('event')).toBe(3);
    emitter.off('event', onEvent);
    emitter.removeListener('event', onceEvent);
    emitter.removeListener('event', prependedOnce);
    expect(emitter.listenerCount('event')).toBe(0);
    emitter.emit('event');
    expect(calls).toEqual([]);
  });

  it('listeners() returns the original functions; listenerCount(event, listener) counts them', () => {
    const emitter = bindEmitter(new EventEmitter());
    const first = () => undefined;
    const second = () => undefined;
    emitter.on('event', first);
    emitter.once('event', second);
    emitter.on('event', first);
    expect(emitter.listeners('event')).toEqual([first, second, first]);
    expect(emitter.listenerCount('event')).toBe(3);
    expect(emitter.listenerCount('event', first)).toBe(2);
    expect(emitter.listenerCount('event', second)).toBe(1);
    expect(emitter.rawListeners('event')).not.toContain(first);
  });

  it("a bound listener keeps the original's length, and is not a constructor", () => {
    const emitter = bindEmitter(new EventEmitter());
    emitter.on('event', (_a: unknown, _b: unknown) => undefined);
    emitter.once('event', function (_a: unknown, _b: unknown, _c: unknown, _d: unknown, _e: unknown) {});
    const [on, once] = emitter.rawListeners('event') as Array<(...args: unknown[]) => unknown>;
    expect([on!.length, once!.length]).toEqual([2, 5]);
    expect(() => new (on as unknown as new () => unknown)()).toThrow(TypeError);
  });

  it('removeAllListeners works for one event and for all', () => {
    const emitter = bindEmitter(new EventEmitter());
    emitter.on('a', () => undefined);
    emitter.once('a', () => undefined);
    emitter.on('b', () => undefined);
    emitter.removeAllListeners('a');
    expect([emitter.listenerCount('a'), emitter.listenerCount('b')]).toEqual([0, 1]);
    emitter.removeAllListeners();
    expect(emitter.eventNames()).toEqual([]);
  });

  it('removeListener and newListener events report the original function', () => {
    const emitter = bindEmitter(new EventEmitter());
    const reported: unknown[] = [];
    const listener = () => undefined;
    emitter.on('removeListener', (_event, removed) => reported.push(['removed', removed]));
    emitter.on('newListener', (_event, added) => reported.push(['new', added]));
    emitter.on('event', listener);
    emitter.off('event', listener);
    expect(reported).toEqual([
      ['new', listener],
      ['removed', listener],
    ]);
  });

  it('a once listener fires once even when it emits the same event again', () => {
    const emitter = bindEmitter(new EventEmitter());
    let calls = 0;
    emitter.once('event', () => {
      calls++;
      emitter.emit('event');
    });
    emitter.on('event', () => undefined);
    emitter.emit('event');
    expect(calls).toBe(1);
  });

  it('binding is idempotent, returns the same emitter, and adds only the listener methods it overrides', () => {
    const emitter = new EventEmitter();
    const keysBefore = Object.keys(emitter);
    expect(bindEmitter(emitter)).toBe(emitter);
    expect(bindEmitter(emitter)).toBe(emitter);
    expect(Object.keys(emitter)).toEqual([
      ...keysBefore,
      'on',
      'addListener',
      'prependListener',
      'once',
      'prependOnceListener',
    ]);
    let calls = 0;
    emitter.on('event', () => calls++);
    emitter.emit('event');
    expect(calls).toBe(1);
  });

  it("keeps an emitter's own replaced listener methods (a mock, another library's wrapper)", () => {
    const emitter = new EventEmitter();
    const registered: string[] = [];
    const originalOn = emitter.on.bind(emitter);
    emitter.on = (event: string | symbol, listener: (...args: unknown[]) => void) => {
      registered.push(String(event));
      return originalOn(event, listener);
    };
    bindEmitter(emitter);
    const heard = heardIn(emitter, (listener) => emitter.on('event', listener));
    expect(registered).toEqual(['event']);
    expect(heard).toEqual(['registration']);
    expect(heardIn(emitter, (listener) => emitter.once('event', listener))).toEqual(['registration']);
  });

  it('leaves invalid listeners to EventEmitter, which rejects them with its own error', () => {
    const emitter = bindEmitter(new EventEmitter());
    expect(() => emitter.on('event', 'not a function' as never)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }),
    );
  });

  it('a once listener reached again by a nested emit runs once; a listener that is no function is left to EventEmitter', () => {
    const emitter = bindEmitter(new EventEmitter());
    let calls = 0;
    let nested = false;
    // The outer emit iterates a copy of the listeners, which still holds the once listener the nested emit ran.
    emitter.on('event', () => {
      if (nested) return;
      nested = true;
      emitter.emit('event');
    });
    emitter.once('event', () => calls++);
    emitter.emit('event');
    expect(calls).toBe(1);
    for (const add of ['on', 'once'] as const) {
      expect(() => emitter[add]('event', 'no function' as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }) as Error,
      );
    }
  });

  it('rejects what is not an EventEmitter with ERR_AMBIENT_INVALID_ARGUMENT', () => {
    expectAmbientError(() => bindEmitter({} as never), 'ERR_AMBIENT_INVALID_ARGUMENT');
    expectAmbientError(() => bindEmitter(null as never), 'ERR_AMBIENT_INVALID_ARGUMENT');
  });

  itFromEveryState('binds a Readable stream: data and end listeners run where they were registered', async () => {
    const stream = bindEmitter(new Readable({ read() {} }));
    const seen: (string | undefined)[] = [];
    const ended = variable.run(
      'reader',
      () =>
        new Promise<void>((resolve) => {
          stream.on('data', () => seen.push(variable.get()));
          stream.once('end', () => {
            seen.push(variable.get());
            resolve();
          });
        }),
    );
    variable.run('producer', () => {
      stream.push('chunk');
      setTimeout(() => stream.push(null), 1);
    });
    await ended;
    expect(seen).toEqual(['reader', 'reader']);
  });
});
