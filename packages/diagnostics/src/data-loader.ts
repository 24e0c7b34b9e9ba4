import { requestContext } from '@ambient/core';
import { scopeObject } from '@ambient/core/internal';
import { capturedCallSite, type CallSite } from './call-site.js';
import type { Reporter } from './reporter.js';

/** The DataLoader class (`import DataLoader from 'dataloader'`), version 2: its prototype is what is watched. */
export interface DataLoaderClass {
  readonly prototype: object;
}

/** What DataLoader 2 keeps on each loader that is read here: the batch that is open, and its name. */
interface LoaderInternals {
  _batch?: object | null;
  name?: unknown;
  load: (this: LoaderInternals, key: unknown) => unknown;
}

/** The current request's id, read without counting as a lost read where there is none. */
const currentRequestId = (): string | undefined => scopeObject(requestContext)?.requestId;

const unrecorded: CallSite = { site: 'a place not recorded (created before diagnostics were on)', stack: '' };

/**
 * A loader shared between requests (graphql/dataloader#95): DataLoader runs a batch from a job queued by the
 * load() that opened it, so the batch function runs in that load's request, and every request whose load()
 * joins the batch in the meantime has its keys loaded, logged and authorised as the first one. Each load() is
 * checked against the request that opened its batch; a loader created and used inside one request never is
 * reported. The constructor cannot be wrapped (the application holds the class), so its last assignment,
 * `this.name = …`, is caught by a setter on the prototype, which records the creation site and leaves a plain
 * property on the loader.
 */
export function watchDataLoader(DataLoader: DataLoaderClass, reporter: Reporter): () => void {
  const prototype = DataLoader.prototype as LoaderInternals;
  const created = new WeakMap<object, () => CallSite>();
  const openedBy = new WeakMap<object, string | undefined>();
  const nameDescriptor = Object.getOwnPropertyDescriptor(prototype, 'name');
  const originalLoad = prototype.load;
  Object.defineProperty(prototype, 'name', {
    configurable: true,
    get: () => undefined,
    set: function recordCreation(this: object, value: unknown) {
      created.set(this, capturedCallSite(recordCreation));
      Object.defineProperty(this, 'name', { value, writable: true, enumerable: true, configurable: true });
    },
  });
  const watchedLoad = function load(this: LoaderInternals, key: unknown): unknown {
    const before = this._batch;
    const result = originalLoad.call(this, key);
    const batch = this._batch;
    if (batch === null || batch === undefined) return result;
    const current = currentRequestId();
    if (batch !== before || !openedBy.has(batch)) {
      openedBy.set(batch, current);
      return result;
    }
    const opener = openedBy.get(batch);
    if (opener !== undefined && current !== undefined && opener !== current) {
      const site = created.get(this)?.() ?? unrecorded;
      reporter.sharedDataLoader(typeof this.name === 'string' ? this.name : undefined, site, current, opener);
    }
    return result;
  };
  prototype.load = watchedLoad;
  return () => {
    // Put back only what is still ours: a wrapper installed since (a test's spy) stays, as for the timers.
    if (prototype.load === watchedLoad) prototype.load = originalLoad;
    if (nameDescriptor === undefined) delete prototype.name;
    else Object.defineProperty(prototype, 'name', nameDescriptor);
  };
}
