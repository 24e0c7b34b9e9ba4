import { AsyncLocalStorage } from 'node:async_hooks';
import { captureContext, isAmbientStorage } from '@ambient/core/internal';
import { callSite } from './call-site.js';
import type { Reporter } from './reporter.js';

/**
 * Wraps AsyncLocalStorage#enterWith, for every instance (any library's): a call made outside any Ambient scope
 * sets its value for everything that runs after it in that flow, which at the top level or in a socket's
 * callback is every later request (nestjs-cls#1, nodejs/node#62290). Reported once per call site, with the
 * stack. Returns the undo.
 *
 * Under AsyncContextFrame (Node 24+) `run()` enters and restores with `enterWith`, so every run of every storage
 * comes through here, Ambient's own on every request: those leave at the first test. A call from another
 * storage outside any Ambient scope looks at its caller (one frame): `run()` and `exit()` scope what they enter.
 */
export function watchEnterWith(reporter: Reporter): () => void {
  const prototype = AsyncLocalStorage.prototype as { enterWith: (this: unknown, store: unknown) => void };
  const original = prototype.enterWith;
  const enterWith = function enterWith(this: unknown, store: unknown): void {
    if (!isAmbientStorage(this) && captureContext() === undefined && !calledByRunOrExit()) {
      const { site, stack } = callSite();
      if (reporter.firstAt('enterWith', site)) {
        reporter.report({ kind: 'enterWith', code: 'WARN_AMBIENT_ROOT_ENTER_WITH', site, stack });
      }
    }
    Reflect.apply(original, this, [store]);
  };
  prototype.enterWith = enterWith;

  /** Is the caller of enterWith AsyncLocalStorage's own run() or exit()? */
  function calledByRunOrExit(): boolean {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 1;
    const holder: { stack?: string } = {};
    Error.captureStackTrace(holder, enterWith);
    Error.stackTraceLimit = limit;
    return /at AsyncLocalStorage\.(?:run|exit) \(node:/.test(holder.stack ?? '');
  }

  return () => {
    // Only where ours is still there: a wrapper installed since stays.
    if (prototype.enterWith === enterWith) prototype.enterWith = original;
  };
}
