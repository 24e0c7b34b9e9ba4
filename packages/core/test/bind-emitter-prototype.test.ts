import { EventEmitter } from 'node:events';
import { bindEmitter, Variable } from '@ambient/core';
import { bindEmitterPrototype } from '@ambient/core/internal';
import { expectAmbientError } from './helpers/starting-states.js';

const variable = new Variable<string>({ name: 'bind-emitter-prototype' });

/** An emitter whose prototype was replaced, as express replaces every request's with app.request. */
function expressLike(appPrototype: object): EventEmitter {
  return Object.setPrototypeOf(new EventEmitter(), appPrototype) as EventEmitter;
}

describe('bindEmitterPrototype', () => {
  it('binds every emitter inheriting from the prototype, present and future, without own properties', () => {
    const appPrototype = Object.create(EventEmitter.prototype) as object;
    const before = expressLike(appPrototype);
    bindEmitterPrototype(appPrototype);
    const after = expressLike(appPrototype);
    for (const emitter of [before, after]) {
      const heard: Array<string | undefined> = [];
      variable.run('registration', () => {
        emitter.on('event', () => heard.push(variable.get()));
        emitter.once('event', () => heard.push(`once:${variable.get()}`));
        emitter.prependListener('event', () => heard.push(`prepend:${variable.get()}`));
        emitter.prependOnceListener('event', () => heard.push(`prependOnce:${variable.get()}`));
        emitter.addListener('event', () => heard.push(`add:${variable.get()}`));
      });
      variable.run('emit', () => {
        emitter.emit('event');
        emitter.emit('event');
      });
      expect(heard).toEqual([
        'prependOnce:registration',
        'prepend:registration',
        'registration',
        'once:registration',
        'add:registration',
        'prepend:registration',
        'registration',
        'add:registration',
      ]);
      expect(Object.keys(emitter)).not.toContain('on');
    }
    expect(Object.keys(appPrototype)).toEqual([]);
  });

  it('reaches emitters of a prototype that inherits from the bound one (a mounted express app)', () => {
    const parent = Object.create(EventEmitter.prototype) as object;
    bindEmitterPrototype(parent);
    const mounted = Object.create(parent) as object;
    const emitter = expressLike(mounted);
    let heard: string | undefined;
    variable.run('registration', () => emitter.on('event', () => (heard = variable.get())));
    variable.run('emit', () => emitter.emit('event'));
    expect(heard).toBe('registration');
  });

  it('keeps removeListener/off with the original listener, listenerCount and removeAllListeners working', () => {
    const appPrototype = Object.create(EventEmitter.prototype) as object;
    bindEmitterPrototype(appPrototype);
    const emitter = expressLike(appPrototype);
    const listener = jest.fn();
    emitter.on('event', listener);
    emitter.once('other', listener);
    expect(emitter.listenerCount('event', listener)).toBe(1);
    emitter.off('event', listener);
    emitter.removeListener('other', listener);
    emitter.emit('event');
    emitter.emit('other');
    expect(listener).not.toHaveBeenCalled();
    emitter.on('event', listener);
    emitter.removeAllListeners();
    expect(emitter.eventNames()).toEqual([]);
  });

  it('is idempotent, and makes bindEmitter() on an inheriting emitter a no-op that adds no property', () => {
    const appPrototype = Object.create(EventEmitter.prototype) as object;
    bindEmitterPrototype(appPrototype);
    bindEmitterPrototype(appPrototype);
    const emitter = bindEmitter(expressLike(appPrototype));
    expect(Object.getOwnPropertyNames(emitter)).not.toContain('on');
    let calls = 0;
    variable.run('registration', () => emitter.on('event', () => calls++));
    emitter.emit('event');
    expect(calls).toBe(1);
  });

  it('calls methods a prototype defined itself, and later patches further up its chain', () => {
    const base = Object.create(EventEmitter.prototype) as EventEmitter;
    const seen: string[] = [];
    const custom = Object.create(base) as EventEmitter;
    Object.assign(custom, {
      on(this: EventEmitter, event: string | symbol, listener: (...args: unknown[]) => void) {
        seen.push('custom on');
        return EventEmitter.prototype.on.call(this, event, listener);
      },
    });
    bindEmitterPrototype(custom);
    const plain = Object.create(EventEmitter.prototype) as object;
    bindEmitterPrototype(plain);
    const originalAdd = EventEmitter.prototype.addListener;
    EventEmitter.prototype.addListener = function (this: EventEmitter, ...args: Parameters<typeof originalAdd>) {
      seen.push('patched later');
      return originalAdd.apply(this, args);
    };
    try {
      expressLike(custom).on('event', () => undefined);
      expressLike(plain).addListener('event', () => undefined);
    } finally {
      EventEmitter.prototype.addListener = originalAdd;
    }
    expect(seen).toEqual(['custom on', 'patched later']);
  });

  it.each([[null], [{}], [42], [Object.create(null)]])('rejects %p with ERR_AMBIENT_INVALID_ARGUMENT', (value) => {
    expectAmbientError(() => bindEmitterPrototype(value as object), 'ERR_AMBIENT_INVALID_ARGUMENT');
  });
});
