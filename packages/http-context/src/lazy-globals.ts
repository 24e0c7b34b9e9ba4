import { runInRoot } from '@ambient/core';
import { asyncContextImplementation } from '@ambient/core/internal';

let loaded = false;

/**
 * Node defines `fetch`, `Response`, `Request`, `Headers` and `FormData` as lazy getters: the first access loads
 * the bundled undici, whose module-level objects live as long as the process. On the async_hooks implementation
 * every promise made during that load keeps the current context, so a first access inside a request (koa 3's
 * body setter tests `instanceof Response`; a handler's first `fetch()`) keeps that request's scope for ever (the
 * same class of leak as nodejs/undici#3450; seen on Node 20). Loaded once outside every scope, as the first server
 * is set up. AsyncContextFrame (Node 24+) keeps no context on a settled promise: nothing to do there.
 */
export function loadLazyGlobalsOutsideAnyScope(): void {
  if (loaded) return;
  loaded = true;
  if (asyncContextImplementation() !== 'async_hooks') return;
  runInRoot(() => {
    const web = globalThis as { Response?: unknown };
    void web.Response;
  });
}
