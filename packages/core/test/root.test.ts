import { AsyncLocalStorage } from 'node:async_hooks';
import { createContext, requestContext, runInRoot, Snapshot, Variable } from '@ambient/core';
import { asyncContextImplementation } from '@ambient/core/internal';
import { expectAmbientError, itFromEveryState } from './helpers/starting-states.js';

const variable = new Variable<string>({ name: 'root-test', defaultValue: 'default' });
const jobs = createContext<{ jobId: string }>({ name: 'jobs' });

describe('runInRoot', () => {
  itFromEveryState('runs fn outside every scope, passes arguments and its result through, and restores', () => {
    const before = [variable.get(), jobs.get('jobId'), requestContext.active];
    const result = runInRoot(
      (a: number, b: string) => {
        expect(variable.get()).toBe('default');
        expect(jobs.active).toBe(false);
        expect(requestContext.active).toBe(false);
        return `${a}${b}`;
      },
      1,
      'x',
    );
    expect(result).toBe('1x');
    expect([variable.get(), jobs.get('jobId'), requestContext.active]).toEqual(before);
  });

  it('gives what is created inside none of the caller’s values, even later', async () => {
    const later = await requestContext.run({ requestId: 'r-1' }, () =>
      variable.run('request value', () =>
        runInRoot(async () => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          return [requestContext.get('requestId'), variable.get(), Snapshot.wrap(() => variable.get())()];
        }),
      ),
    );
    expect(later).toEqual([undefined, 'default', 'default']);
  });

  it('restores the caller’s values when fn throws, and lets scopes open inside it', () => {
    jobs.run({ jobId: 'outer' }, () => {
      expect(() =>
        runInRoot(() => {
          jobs.run({ jobId: 'inner' }, () => expect(jobs.get('jobId')).toBe('inner'));
          throw new Error('boom');
        }),
      ).toThrow('boom');
      expect(jobs.get('jobId')).toBe('outer');
    });
  });

  it('rejects a callback that is not a function', () => {
    expectAmbientError(() => runInRoot('nope' as never), 'ERR_AMBIENT_INVALID_ARGUMENT');
  });
});

describe('asyncContextImplementation', () => {
  it('names how this process propagates context', () => {
    const probe = new AsyncLocalStorage() as unknown as { kResourceStore?: unknown };
    const expected = typeof probe.kResourceStore === 'symbol' ? 'async_hooks' : 'AsyncContextFrame';
    expect(['async_hooks', 'AsyncContextFrame', 'AsyncContext']).toContain(asyncContextImplementation());
    if ((globalThis as { AsyncContext?: unknown }).AsyncContext === undefined) {
      expect(asyncContextImplementation()).toBe(expected);
    }
  });
});
