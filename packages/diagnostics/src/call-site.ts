import { dirname } from 'node:path';
import { loadedCopies } from '@ambient/core/internal';

/** A stack as a report shows it, and its first frame outside Ambient: the code that did what is reported. */
export interface CallSite {
  /** `file:line:column` (or the frame's text where it names no file). */
  readonly site: string;
  /** The stack from that frame down, one `at …` line each, ten at most. */
  readonly stack: string;
}

/**
 * Ambient's own frames: the built or source files (dist/, src/) of any package beside @ambient/core, in the
 * folder that holds it (node_modules/@ambient in an install, packages/ in this repository). Computed per call:
 * a copy of core may load later.
 */
function isAmbientFrame(line: string): boolean {
  return loadedCopies().some((copy) => {
    const at = line.indexOf(`${dirname(copy.path)}/`);
    return at !== -1 && /^[^/]+\/(?:dist|src)\//.test(line.slice(at + dirname(copy.path).length + 1));
  });
}

const isNodeInternal = (line: string): boolean => /\((?:node:|internal\/)|at (?:node:|internal\/)/.test(line);

const location = (line: string): string => /\(([^()]+)\)\s*$/.exec(line)?.[1] ?? line.replace(/^\s*at\s+/, '');

/**
 * Where the caller is. The site is the first frame outside Ambient and Node's internals that is not in
 * node_modules (a log call, not pino's own code that read the context for it), or else the first outside
 * Ambient and Node. Costs a stack trace: only taken when something is reported, diagnostics on.
 */
export function callSite(): CallSite {
  return capturedCallSite(callSite)();
}

/**
 * The stack now, formatted only when asked for: V8 captures the frames cheaply and builds the text on the first
 * read of `stack`, which for a timer that runs or is cleared in time is never. `above` and what it called are
 * left out.
 */
export function capturedCallSite(above: (...args: never[]) => unknown): () => CallSite {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder, above);
  Error.stackTraceLimit = limit;
  return () => fromStack(holder.stack);
}

const inDependency = (line: string): boolean => line.includes('/node_modules/');

/** A call site's stack without the frames in node_modules: the application's code, not the router around it. */
export function ownFrames(stack: string): string {
  const own = stack.split('\n').filter((line) => !inDependency(line));
  return own.length === 0 ? stack : own.join('\n');
}

function fromStack(stack: string | undefined): CallSite {
  const frames = (stack ?? '')
    .split('\n')
    .slice(1)
    .filter((line) => !isAmbientFrame(line) && !isNodeInternal(line));
  const own = frames.findIndex((line) => !inDependency(line));
  const first = own === -1 ? 0 : own;
  // The site and what called it, ten frames at most: enough to find the code, short enough to read.
  const from = frames.slice(first, first + 10);
  return {
    site: from[0] === undefined ? 'an unknown place' : location(from[0]),
    stack: from.map((line) => line.trimEnd()).join('\n'),
  };
}
