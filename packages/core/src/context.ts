import { errors, notAFunction } from './errors.js';
import { readOptions, rules, type OptionShape } from './read-options.js';
import {
  allocateSlot,
  contextSlot,
  diagnosticsProbe,
  frameWith,
  registerContextSlot,
  runWithFrame,
  storage,
} from './registry.js';

export interface ContextOptions {
  /** Used in error messages, e.g. `requestContext.set() was called outside any requestContext scope`. */
  name?: string;
}

/** A typed, mutable per-scope store: what a request handler, a job or a test uses. */
export interface Context<S extends object> {
  readonly name: string;
  /** Is a scope of this context open in the current flow? */
  readonly active: boolean;
  /** Opens a scope holding a copy of the enclosing scope's values (if any) overlaid with `values`. */
  run<R, A extends unknown[]>(values: Partial<S>, fn: (...args: A) => R, ...args: A): R;
  /** The value of `key` in the current scope; `undefined` where there is no scope or no value. */
  get<K extends keyof S>(key: K): S[K] | undefined;
  /** The value of `key`; throws AmbientError (ERR_AMBIENT_NO_SCOPE, ERR_AMBIENT_MISSING_VALUE) where there is none. */
  require<K extends keyof S>(key: K): Exclude<S[K], undefined>;
  /** Writes into the innermost open scope, visible to all its continuations; throws outside any scope. */
  set<K extends keyof S>(key: K, value: S[K]): void;
  /** Does the current scope hold a value (not `undefined`) for `key`? */
  has(key: keyof S): boolean;
  /** A frozen copy of the current scope's values, or `undefined` outside any scope. */
  snapshot(): Readonly<Partial<S>> | undefined;
}

/** Every scope's prototype: empty and null-prototyped, so "__proto__" or "toString" are plain data, never inherited. */
const scopePrototype: object = Object.create(null) as object;

export class ScopedContext<S extends object> implements Context<S> {
  readonly name: string;
  readonly #slot: number;
  /** The end of an ERR_AMBIENT_NO_SCOPE message: how to open a scope of this context. */
  readonly #howToOpenAScope: string;

  constructor(name: string, howToOpenAScope = `Wrap the call in ${name}.run(values, fn) to open a scope.`) {
    this.name = name;
    this.#slot = allocateSlot();
    this.#howToOpenAScope = howToOpenAScope;
    registerContextSlot(this, this.#slot);
  }

  get active(): boolean {
    return storage.getStore()?.[this.#slot] !== undefined;
  }

  run<R, A extends unknown[]>(values: Partial<S>, fn: (...args: A) => R, ...args: A): R {
    if (typeof values !== 'object' || values === null) {
      throw errors.invalidArgument(`${this.name}.run(values, fn)`, 'an object of initial values', values);
    }
    if (typeof fn !== 'function') throw notAFunction(`${this.name}.run(values, fn)`, fn);
    const frame = storage.getStore();
    const scope = Object.assign(Object.create(scopePrototype) as Partial<S>, frame?.[this.#slot], values);
    return runWithFrame(frameWith(frame, this.#slot, scope), fn, undefined, args);
  }

  get<K extends keyof S>(key: K): S[K] | undefined {
    const scope = storage.getStore()?.[this.#slot] as Partial<S> | undefined;
    if (scope !== undefined) return scope[key];
    // No scope: a lost context, if requests are being served (@ambient/diagnostics, when on, says where).
    diagnosticsProbe()?.missedRead(this.name);
    return undefined;
  }

  require<K extends keyof S>(key: K): Exclude<S[K], undefined> {
    const value = this.#scope('require')[key];
    if (value === undefined) throw errors.missingValue(this.name, String(key));
    return value as Exclude<S[K], undefined>;
  }

  set<K extends keyof S>(key: K, value: S[K]): void {
    this.#scope('set')[key] = value;
  }

  has(key: keyof S): boolean {
    return this.get(key) !== undefined;
  }

  snapshot(): Readonly<Partial<S>> | undefined {
    const scope = storage.getStore()?.[this.#slot] as Partial<S> | undefined;
    return scope === undefined ? undefined : Object.freeze({ ...scope });
  }

  #scope(operation: string): Partial<S> {
    const scope = storage.getStore()?.[this.#slot] as Partial<S> | undefined;
    if (scope === undefined) throw errors.noScope(this.name, operation, this.#howToOpenAScope);
    return scope;
  }
}

const contextOptions: OptionShape<ContextOptions> = { name: rules.string };

/** Creates a typed per-scope store. Create contexts once, at module level, like Python's ContextVars. */
export function createContext<S extends object>(options?: ContextOptions): Context<S> {
  const { name = 'context' } = readOptions<ContextOptions>(options, contextOptions, {
    where: 'createContext(options)',
  });
  return new ScopedContext<S>(name);
}

/**
 * `runInRoot(() => context.run(values, fn))` in one frame, the values written by `fill` into the new scope:
 * how every job run opens its scope.
 */
export function runFromRoot<S extends object, R>(
  context: Context<S>,
  fill: (scope: Partial<S>) => void,
  fn: () => R,
): R {
  const slot = contextSlot(context);
  if (slot === undefined) throw errors.invalidArgument('runFromRoot(context)', 'a context of this copy', context);
  const scope = Object.create(scopePrototype) as Partial<S>;
  fill(scope);
  return runWithFrame(frameWith(undefined, slot, scope), fn, undefined, []);
}

/**
 * The object `set` writes the current scope's values of `context` to, or `undefined` outside any scope, read
 * without reporting a miss to @ambient/diagnostics: for code whose normal case is to run outside any scope.
 */
export function scopeObject<S extends object>(context: Context<S>): Partial<S> | undefined {
  const slot = contextSlot(context);
  return slot === undefined ? undefined : (storage.getStore()?.[slot] as Partial<S> | undefined);
}
