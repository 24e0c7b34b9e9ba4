import { readFileSync } from 'node:fs';
import DataLoader from 'dataloader';
import { requestContext } from '@ambient/core';
import { enableDiagnostics, type DiagnosticReport } from '@ambient/diagnostics';

type Batched = { keys: readonly string[]; ranIn: string | undefined };

/** A loader whose batch function records its keys and the request it ran in. */
function loader(batches: Batched[], options?: DataLoader.Options<string, string>): DataLoader<string, string> {
  return new DataLoader<string, string>(async (keys) => {
    batches.push({ keys, ranIn: requestContext.get('requestId') });
    return keys.map((key) => `value of ${key}`);
  }, options);
}

/** Runs `fn` as request `requestId`. */
const asRequest = <R>(requestId: string, fn: () => R): R => requestContext.run({ requestId }, fn);

function collecting() {
  const reports: DiagnosticReport[] = [];
  const diagnostics = enableDiagnostics({ warnings: false, onReport: (r) => reports.push(r), dataLoader: DataLoader });
  const shared = () => reports.filter((r) => r.kind === 'sharedDataLoader');
  return { shared, diagnostics };
}

describe('enableDiagnostics({ dataLoader }): a DataLoader shared between requests', () => {
  let off: (() => void) | undefined;
  afterEach(() => off?.());

  it('reports a load that joins a batch another request opened, with where the loader was created', async () => {
    const { shared, diagnostics } = collecting();
    off = () => diagnostics.disable();
    const batches: Batched[] = [];
    const users = loader(batches, { name: 'users' }); // created outside any request, used by every one
    const values = await Promise.all([
      asRequest('req-A', () => users.load('a')),
      asRequest('req-B', () => users.load('b')),
    ]);
    expect(values).toEqual(['value of a', 'value of b']);
    // The bug itself: request B's key was loaded in request A's context (graphql/dataloader#95).
    expect(batches).toEqual([{ keys: ['a', 'b'], ranIn: 'req-A' }]);
    expect(shared()).toEqual([
      {
        kind: 'sharedDataLoader',
        code: 'WARN_AMBIENT_SHARED_DATALOADER',
        loader: 'users',
        site: expect.stringMatching(/data-loader\.test\.ts:\d+:\d+$/),
        stack: expect.stringMatching(/^\s*at .*data-loader\.test\.ts/),
        ownerRequestId: 'req-B',
        foundRequestId: 'req-A',
      },
    ]);
    // The site is `new DataLoader` (in the helper here); the stack goes on to the line that called it.
    expect(shared()[0]?.site).toContain(`data-loader.test.ts:${lineOf('return new DataLoader')}:`);
    expect(shared()[0]?.stack).toContain(`data-loader.test.ts:${lineOf('const users = loader(batches')}:`);
    expect(diagnostics.report().sharedDataLoader).toBe(1);
  });

  it('does not report the clean twin: a loader per request, each batch in its own request', async () => {
    const { shared, diagnostics } = collecting();
    off = () => diagnostics.disable();
    const batches: Batched[] = [];
    const perRequest = (id: string, key: string) =>
      asRequest(id, () => {
        const own = loader(batches);
        return Promise.all([own.load(key), own.load(`${key}2`), own.loadMany([key])]);
      });
    await Promise.all([perRequest('req-A', 'a'), perRequest('req-B', 'b')]);
    expect(batches).toEqual([
      { keys: ['a', 'a2'], ranIn: 'req-A' },
      { keys: ['b', 'b2'], ranIn: 'req-B' },
    ]);
    expect(shared()).toEqual([]);
    expect(diagnostics.report().sharedDataLoader).toBe(0);
  });

  it('reports a loader created in one request and called from another (a cached context object)', async () => {
    const { shared, diagnostics } = collecting();
    off = () => diagnostics.disable();
    const batches: Batched[] = [];
    const kept = asRequest('req-A', () => loader(batches));
    await Promise.all([asRequest('req-A', () => kept.load('a')), asRequest('req-B', () => kept.load('b'))]);
    await Promise.all([asRequest('req-A', () => kept.load('c')), asRequest('req-B', () => kept.load('d'))]);
    expect(shared()).toEqual([expect.objectContaining({ loader: undefined, ownerRequestId: 'req-B' })]);
    // Reported once for the place the loader was created, counted every time.
    expect(diagnostics.report().sharedDataLoader).toBe(2);
  });

  it('does not report a shared loader whose batches each serve one request, nor loads outside any request', async () => {
    const { shared, diagnostics } = collecting();
    off = () => diagnostics.disable();
    const batches: Batched[] = [];
    const users = loader(batches, { cache: false });
    await asRequest('req-A', () => users.load('a'));
    await asRequest('req-B', () => users.load('b'));
    await Promise.all([users.load('boot'), asRequest('req-C', () => users.load('c'))]);
    await Promise.all([asRequest('req-D', () => users.load('d')), users.load('boot')]);
    expect(batches.map((batch) => batch.ranIn)).toEqual(['req-A', 'req-B', undefined, 'req-D']);
    expect(shared()).toEqual([]);
  });

  it('reports a loader created before diagnostics were on, without a creation site', async () => {
    const batches: Batched[] = [];
    const early = loader(batches);
    const { shared, diagnostics } = collecting();
    off = () => diagnostics.disable();
    await Promise.all([asRequest('req-A', () => early.load('a')), asRequest('req-B', () => early.load('b'))]);
    expect(shared()).toEqual([
      expect.objectContaining({ site: 'a place not recorded (created before diagnostics were on)', stack: '' }),
    ]);
  });

  it('emits the report as a coded warning naming both requests and the site', async () => {
    const emitted = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const diagnostics = enableDiagnostics({ dataLoader: DataLoader });
      off = () => diagnostics.disable();
      const users = loader([], { name: 'users' });
      await Promise.all([asRequest('req-A', () => users.load('a')), asRequest('req-B', () => users.load('b'))]);
      const warning = emitted.mock.calls.find(
        ([, options]) => (options as { code: string }).code === 'WARN_AMBIENT_SHARED_DATALOADER',
      );
      expect(warning?.[0]).toEqual(expect.stringContaining('DataLoader "users" created at '));
      expect(warning?.[0]).toEqual(expect.stringMatching(/request req-B with request req-A's/));
    } finally {
      emitted.mockRestore();
    }
  });

  it('disable() puts the prototype back; a loader made while on keeps working, as a plain one', async () => {
    const { load } = DataLoader.prototype;
    const { diagnostics } = collecting();
    expect(DataLoader.prototype.load).not.toBe(load);
    const made = loader([], { name: 'made-while-on' });
    diagnostics.disable();
    expect(DataLoader.prototype.load).toBe(load);
    expect(Object.getOwnPropertyDescriptor(DataLoader.prototype, 'name')).toBeUndefined();
    expect(made.name).toBe('made-while-on');
    expect(Object.keys(made)).toContain('name');
    await expect(made.load('x')).resolves.toBe('value of x');
    expect(new DataLoader(async (keys: readonly number[]) => keys).name).toBeNull();
  });

  it('watches a subclass given instead, and puts back its own name accessor on disable()', async () => {
    // A subclass with a `name` accessor of its own; the base constructor sets `name` before a subclass's fields
    // exist, so the label is a plain property.
    class LabelledLoader extends DataLoader<string, string> {}
    Object.defineProperty(LabelledLoader.prototype, 'name', {
      configurable: true,
      get(this: { label: string }) {
        return this.label;
      },
      set(this: { label: string }, label: string | null) {
        this.label = label ?? 'anonymous';
      },
    });
    const own = Object.getOwnPropertyDescriptor(LabelledLoader.prototype, 'name');
    const reports: DiagnosticReport[] = [];
    const diagnostics = enableDiagnostics({
      warnings: false,
      onReport: (r) => reports.push(r),
      dataLoader: LabelledLoader,
    });
    expect(LabelledLoader.prototype.name).toBeUndefined();
    const labelled = new LabelledLoader(async (keys) => keys.map((key) => key));
    await Promise.all([asRequest('req-A', () => labelled.load('a')), asRequest('req-B', () => labelled.load('b'))]);
    expect(reports.filter((r) => r.kind === 'sharedDataLoader')).toHaveLength(1);
    diagnostics.disable();
    expect(Object.getOwnPropertyDescriptor(LabelledLoader.prototype, 'name')).toEqual(own);
    expect(new LabelledLoader(async (keys) => keys).name).toBe('anonymous');
  });

  it('leaves a wrapper installed since in place on disable()', () => {
    const { diagnostics } = collecting();
    const { load } = DataLoader.prototype;
    const spy = function (this: DataLoader<unknown, unknown>, key: unknown) {
      return load.call(this, key);
    };
    DataLoader.prototype.load = spy;
    diagnostics.disable();
    expect(DataLoader.prototype.load).toBe(spy);
    DataLoader.prototype.load = load;
  });

  it.each([[{}], [function NotALoader() {}], ['dataloader']])('rejects dataLoader: %p', (dataLoader) => {
    expect(() => enableDiagnostics({ dataLoader } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_AMBIENT_DIAGNOSTICS_INVALID_OPTION' }),
    );
  });
});

/** The line number of the first line of this file that holds `text`. */
function lineOf(text: string): number {
  const source = readFileSync(__filename, 'utf8');
  return source.split('\n').findIndex((line) => line.includes(text)) + 1;
}
