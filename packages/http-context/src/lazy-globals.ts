import { runInRoot } from '@ambient/core';
import { asyncContextImplementation } from '@ambient/core/internal';

let loaded = false;

/**
 * Node defines `fetch`, `Response`, `Request`, `Headers` and `FormData` as lazy getters: the first access loads
 * the bundled undici, whose module-level objects (its global dispatcher and a pending `llhttp` promise) live as
 * long as the process. Under the async_hooks implementation of AsyncLocalStorage every promise created during
 * that load stores the current context, so when the first access happens inside a request (koa 3's body setter
 * tests `instanceof Response` on every response; a handler's first `fetch()`), that request's scope, and
 * everything set into it, is never collected (the same class of leak as nodejs/undici#3450; seen on Node 20).
 * Loading them once outside every scope, when the first server is set up, leaves nothing for a request to pin.
 * AsyncContextFrame (Node 24+) keeps no context on a settled promise, so there is nothing to do there.
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
