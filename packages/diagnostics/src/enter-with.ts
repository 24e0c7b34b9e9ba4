import { AsyncLocalStorage } from 'node:async_hooks';
import { captureContext, isAmbientStorage } from '@ambient/core/adapter';
import { callSite } from './call-site.js';
import type { Reporter } from './reporter.js';

/**
 * Wraps AsyncLocalStorage#enterWith, for every instance (any library's): a call made outside any Ambient scope
 * sets its value for everything that runs after it in that flow, which at the top level or in a socket's
 * callback is every later request (nestjs-cls#1, nodejs/node#62290). Reported once per call site, with the
 * stack. Ambient's own storage never calls it outside a frame it restores. Returns the undo.
 */
export function watchEnterWith(reporter: Reporter): () => void {
  const prototype = AsyncLocalStorage.prototype as {
    enterWith: (this: unknown, store: unknown) => void;
    run: (this: unknown, ...args: unknown[]) => unknown;
  };
  const original = prototype.enterWith;
  const originalRun = prototype.run;
  const reported = new Set<string>();
  // Under AsyncContextFrame (Node 24+) run() enters and restores with enterWith: those calls are scoped.
  let inRun = 0;
  prototype.run = function run(this: unknown, ...args: unknown[]): unknown {
    inRun++;
    try {
      return Reflect.apply(originalRun, this, args);
    } finally {
      inRun--;
    }
  };
  prototype.enterWith = function enterWith(this: unknown, store: unknown): void {
    if (inRun === 0 && !isAmbientStorage(this) && captureContext() === undefined) {
      const { site, stack } = callSite();
      if (!reported.has(site)) {
        reported.add(site);
        reporter.report({ kind: 'enterWith', code: 'WARN_AMBIENT_ROOT_ENTER_WITH', site, stack });
      }
    }
    Reflect.apply(original, this, [store]);
  };
  const installed = { enterWith: prototype.enterWith, run: prototype.run };
  return () => {
    // Only where ours is still there: a wrapper installed since stays.
    if (prototype.enterWith === installed.enterWith) prototype.enterWith = original;
    if (prototype.run === installed.run) prototype.run = originalRun;
  };
}
