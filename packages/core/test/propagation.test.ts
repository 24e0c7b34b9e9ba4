import { EventEmitter, once } from 'node:events';
import { readFile } from 'node:fs';
import { readFile as readFileAsync } from 'node:fs/promises';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { bindEmitter, createContext, Variable } from '@ambient/core';
import { delay, itFromEveryState } from './helpers/starting-states.js';

/**
 * Each async hop is exercised by two concurrent flows, "a" and "b". In each flow a value is put in place three
 * ways: Variable#run, Context#run and Variable#set. Every observation point inside the hop must see its own
 * flow's three values, and nothing may be left behind once the flows end.
 */
const ranVariable = new Variable<string>({ name: 'ran' });
const setVariable = new Variable<string>({ name: 'set' });
const context = createContext<{ id: string }>({ name: 'propagation' });

type Observed = readonly [ran: string | undefined, set: string | undefined, context: string | undefined];

function observe(): Observed {
  return [ranVariable.get(), setVariable.get(), context.get('id')];
}

function inFlow(id: string, hop: () => Promise<Observed[]> | Observed[]): Promise<Observed[]> {
  return ranVariable.run(id, () =>
    context.run({ id }, async () => {
      setVariable.set(id);
      return hop();
    }),
  );
}

function hopCase(title: string, hop: () => Promise<Observed[]> | Observed[]): void {
  itFromEveryState(title, async () => {
    const before = observe();
    const [a, b] = await Promise.all([inFlow('a', hop), inFlow('b', hop)]);
    expect(a.length).toBeGreaterThan(0);
    for (const seen of a) expect(seen).toEqual(['a', 'a', 'a']);
    for (const seen of b) expect(seen).toEqual(['b', 'b', 'b']);
    expect(observe()).toEqual(before);
  });
}

describe('values follow every async hop', () => {
  hopCase('await', async () => {
    await null;
    const first = observe();
    await delay(Math.random() * 3);
    return [first, observe()];
  });

  hopCase('promise chains (then, catch, finally)', () => {
    const seen: Observed[] = [];
    return Promise.resolve()
      .then(() => seen.push(observe()))
      .then(() => Promise.reject(new Error('x')))
      .catch(() => seen.push(observe()))
      .finally(() => seen.push(observe()))
      .then(() => seen);
  });

  hopCase('a custom thenable (nodejs/node#26064)', async () => {
    const seen: Observed[] = [];
    const thenable = {
      then(resolve: (value: string) => void) {
        seen.push(observe());
        setTimeout(() => {
          seen.push(observe());
          resolve('done');
        }, Math.random() * 3);
      },
    };
    await thenable;
    seen.push(observe());
    return seen;
  });

  hopCase('setTimeout, setImmediate, setInterval, process.nextTick and queueMicrotask', async () => {
    const timeout = new Promise<Observed>((resolve) => setTimeout(() => resolve(observe()), Math.random() * 3));
    const immediate = new Promise<Observed>((resolve) => setImmediate(() => resolve(observe())));
    const interval = new Promise<Observed>((resolve) => {
      const handle = setInterval(() => {
        clearInterval(handle);
        resolve(observe());
      }, 1);
    });
    const tick = new Promise<Observed>((resolve) => process.nextTick(() => resolve(observe())));
    const microtask = new Promise<Observed>((resolve) => queueMicrotask(() => resolve(observe())));
    return Promise.all([timeout, immediate, interval, tick, microtask]);
  });

  hopCase('an EventEmitter created, listened to and emitted from within the flow', async () => {
    const emitter = new EventEmitter();
    const heard = new Promise<Observed>((resolve) => emitter.on('event', () => resolve(observe())));
    setTimeout(() => emitter.emit('event'), Math.random() * 3);
    const [viaOnce] = (await once(emitter, 'event')) as [] | [Observed];
    return [await heard, viaOnce ?? observe()];
  });

  hopCase('a bound EventEmitter emitted from outside every flow', async () => {
    const emitter = bindEmitter(new EventEmitter());
    const heard = new Promise<Observed>((resolve) => emitter.once('event', () => resolve(observe())));
    emitLater.push(emitter);
    return [await heard];
  });

  hopCase('streams: Readable.from through a Transform into a Writable, with pipeline', async () => {
    const seen: Observed[] = [];
    await pipeline(
      Readable.from(['x', 'y', 'z']),
      new Transform({
        objectMode: true,
        transform(chunk: string, _encoding, callback) {
          seen.push(observe());
          setTimeout(() => callback(null, chunk), Math.random() * 2);
        },
      }),
      new Writable({
        objectMode: true,
        write(_chunk: string, _encoding, callback) {
          seen.push(observe());
          callback();
        },
      }),
    );
    seen.push(observe());
    return seen;
  });

  hopCase('a stream read with data and end listeners, and with for await', async () => {
    const seen: Observed[] = [];
    const stream = Readable.from(['x', 'y']);
    stream.on('data', () => seen.push(observe()));
    await new Promise<void>((resolve) =>
      stream.on('end', () => {
        seen.push(observe());
        resolve();
      }),
    );
    for await (const chunk of Readable.from(['p', 'q'])) {
      if (typeof chunk === 'string') seen.push(observe());
    }
    return seen;
  });

  hopCase('fs callbacks and fs/promises', async () => {
    const viaCallback = await new Promise<Observed>((resolve, reject) =>
      readFile(__filename, (error) => (error ? reject(error) : resolve(observe()))),
    );
    await readFileAsync(__filename);
    return [viaCallback, observe()];
  });

  hopCase('async generators', async () => {
    async function* generate(): AsyncGenerator<Observed> {
      for (let i = 0; i < 3; i++) {
        await delay(Math.random() * 2);
        yield observe();
      }
    }
    const seen: Observed[] = [];
    for await (const observed of generate()) seen.push(observed, observe());
    return seen;
  });

  hopCase('Promise.all, Promise.race, Promise.allSettled and Promise.any', async () => {
    const read = async () => {
      await delay(Math.random() * 3);
      return observe();
    };
    const all = await Promise.all([read(), read()]);
    const raced = await Promise.race([read(), read()]);
    const settled = await Promise.allSettled([read()]);
    const any = await Promise.any([read()]);
    return [
      ...all,
      raced,
      ...settled.map((result) => (result.status === 'fulfilled' ? result.value : observe())),
      any,
      observe(),
    ];
  });

  hopCase('thrown errors: try/catch after await, rejection handlers, and sync throws', async () => {
    const seen: Observed[] = [];
    const fail = async () => {
      await delay(Math.random() * 2);
      throw new Error('async failure');
    };
    try {
      await fail();
    } catch {
      seen.push(observe());
    }
    await fail().catch(() => seen.push(observe()));
    try {
      ranVariable.run('inner', () => {
        throw new Error('sync failure');
      });
    } catch {
      seen.push(observe());
    }
    return seen;
  });
});

/**
 * Emitters that must be fired from outside every flow: a timer created at module load belongs to no flow, so
 * whatever it emits runs, unbound, with no values at all.
 */
const emitLater: EventEmitter[] = [];
const outsideEveryFlow = setInterval(() => {
  for (const emitter of emitLater.splice(0)) emitter.emit('event');
}, 1);
afterAll(() => clearInterval(outsideEveryFlow));

describe("an unbound EventEmitter runs listeners in the emitter's context", () => {
  itFromEveryState(
    'the listener sees the values of emit(), not of registration (bindEmitter changes this)',
    async () => {
      const plain = new EventEmitter();
      const bound = bindEmitter(new EventEmitter());
      const seen: Record<string, Observed> = {};
      void inFlow('registration', () => {
        plain.on('event', () => (seen.plain = observe()));
        bound.on('event', () => (seen.bound = observe()));
        return [];
      });
      await inFlow('emit', () => {
        plain.emit('event');
        bound.emit('event');
        return [];
      });
      expect(seen.plain).toEqual(['emit', 'emit', 'emit']);
      expect(seen.bound).toEqual(['registration', 'registration', 'registration']);
    },
  );
});
