import { createContext, Snapshot, Variable } from '@ambient/core';
import { delay } from './helpers/starting-states.js';

/** 1,000 concurrent flows, each hopping through random delays: every read must see its own flow's values. */
describe('1,000 interleaved flows', () => {
  it('see zero cross-talk across Variable#run, Variable#set, Context and Snapshot', async () => {
    const ran = new Variable<number>({ name: 'ran' });
    const set = new Variable<number>({ name: 'set' });
    const context = createContext<{ flow: number; step?: number }>({ name: 'flows' });
    const mismatches: string[] = [];

    const check = (flow: number, where: string) => {
      const seen = [ran.get(), set.get(), context.get('flow')];
      if (seen.some((value) => value !== flow)) mismatches.push(`flow ${flow} at ${where} saw ${seen.join('/')}`);
    };

    const flow = (id: number) =>
      ran.run(id, () =>
        context.run({ flow: id }, async () => {
          set.set(id);
          for (let step = 0; step < 5; step++) {
            await delay(Math.random() * 4);
            check(id, `step ${step}`);
            context.set('step', step);
            await new Promise<void>((resolve) => setImmediate(resolve));
            check(id, `step ${step} after setImmediate`);
          }
          const snapshot = new Snapshot();
          await delay(Math.random() * 2);
          ran.run(-1, () => snapshot.run(() => check(id, 'snapshot')));
          return context.get('step');
        }),
      );

    const results = await Promise.all(Array.from({ length: 1000 }, (_, id) => flow(id)));
    expect(mismatches).toEqual([]);
    expect(results.every((step) => step === 4)).toBe(true);
    expect([ran.get(), set.get(), context.active]).toEqual([undefined, undefined, false]);
  });
});
