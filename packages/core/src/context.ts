import { errors } from './errors.js';
import * as shared from './storage.js';
import { readOptions, rules, type OptionShape } from './read-options.js';
import { runInRoot } from './root.js';
import { notAFunction } from './validate.js';

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

/**
 * Scope values live in objects whose prototype is an empty null-prototype object: property reads stay on
 * V8's fast path (Object.create(null) objects are dictionaries), while keys such as "__proto__" or
 * "toString" are plain data, never inherited from Object.prototype.
 */
const scopePrototype: object = Object.create(null) as object;

/* Hot-path bindings as this module's own consts, for the reason given in variable.ts. */
const { storage, frameWith, runWithFrame, allocateSlot, diagnosticsProbe } = shared;
const kSlot = Symbol('ambient.Context.slot');
const kHowToOpenAScope = Symbol('ambient.Context.howToOpenAScope');
/**
 * runNewScopeFromRoot's method, under a registered symbol: a context made by another copy of this package (the ESM
 * and CJS builds share one requestContext) has it under the same key.
 */
const kRunFromRoot = Symbol.for('@ambient/core.Context.runFromRoot.v1');

/** runNewScope's method, registered for the same reason as kRunFromRoot. */
const kRunNewScope = Symbol.for('@ambient/core.Context.runNewScope.v1');

/** scopeObject's method, registered for the same reason as kRunFromRoot. */
const kScopeObject = Symbol.for('@ambient/core.Context.scopeObject.v1');

export class ScopedContext<S extends object> implements Context<S> {
  declare readonly name: string;
  declare readonly [kSlot]: number;
  /** The end of an ERR_AMBIENT_NO_SCOPE message: how to open a scope of this context. */
  declare readonly [kHowToOpenAScope]: string;

  constructor(name: string, howToOpenAScope = `Wrap the call in ${name}.run(values, fn) to open a scope.`) {
    this.name = name;
    this[kSlot] = allocateSlot();
    this[kHowToOpenAScope] = howToOpenAScope;
  }

  get active(): boolean {
    return storage.getStore()?.[this[kSlot]] !== undefined;
  }

  run<R, A extends unknown[]>(values: Partial<S>, fn: (...args: A) => R, ...args: A): R {
    if (typeof values !== 'object' || values === null) {
      throw errors.invalidArgument(`${this.name}.run(values, fn)`, 'an object of initial values', values);
    }
    if (typeof fn !== 'function') throw notAFunction(`${this.name}.run(values, fn)`, fn);
    const frame = storage.getStore();
    const parent = frame?.[this[kSlot]];
    const scope: Partial<S> = Object.create(scopePrototype) as Partial<S>;
    if (parent === undefined) Object.assign(scope, values);
    else Object.assign(scope, parent, values);
    return runWithFrame(frameWith(frame, this[kSlot], scope), fn, ...args);
  }

  /**
   * `adopt`: `values` came from newScope() and nobody else holds it, so it becomes the scope uncopied, if it is
   * of this copy's scope shape (hasScopeShape).
   */
  [kRunFromRoot]<R>(values: Partial<S>, fn: () => R, adopt?: boolean): R {
    const scope: Partial<S> =
      adopt === true && hasScopeShape(values)
        ? values
        : Object.assign(Object.create(scopePrototype) as Partial<S>, values);
    return runWithFrame(frameWith(undefined, this[kSlot], scope), fn);
  }

  /**
   * run(values, fn) for `values` from this copy's newScope() that nobody else holds: outside any scope of this
   * context it becomes the scope uncopied; inside one it is copied over the outer scope's values, as run() does.
   */
  [kRunNewScope]<R>(values: Partial<S>, fn: () => R): R {
    const frame = storage.getStore();
    // Anything run() would reject goes to run(), for its typed errors.
    if (
      frame?.[this[kSlot]] !== undefined ||
      typeof values !== 'object' ||
      values === null ||
      typeof fn !== 'function' ||
      !hasScopeShape(values)
    ) {
      return this.run(values, fn);
    }
    return runWithFrame(frameWith(frame, this[kSlot], values), fn);
  }

  get<K extends keyof S>(key: K): S[K] | undefined {
    const scope = storage.getStore()?.[this[kSlot]] as Partial<S> | undefined;
    if (scope !== undefined) return scope[key];
    // No scope: a lost context, if requests are being served (@ambient/diagnostics, when on, says where).
    diagnosticsProbe()?.missedRead(this.name);
    return undefined;
  }

  [kScopeObject](): object | undefined {
    return storage.getStore()?.[this[kSlot]] as object | undefined;
  }

  require<K extends keyof S>(key: K): Exclude<S[K], undefined> {
    const value = this.#scope('require')[key];
    if (value === undefined) throw errors.missingValue(this.name, String(key));
    // Narrowing a generic indexed access does not reach Exclude<S[K], undefined>; the check above is the proof.
    return value as Exclude<S[K], undefined>;
  }

  set<K extends keyof S>(key: K, value: S[K]): void {
    this.#scope('set')[key] = value;
  }

  has(key: keyof S): boolean {
    return this.get(key) !== undefined;
  }

  snapshot(): Readonly<Partial<S>> | undefined {
    const scope = storage.getStore()?.[this[kSlot]] as Partial<S> | undefined;
    return scope === undefined ? undefined : Object.freeze({ ...scope });
  }

  #scope(operation: string): Partial<S> {
    const scope = storage.getStore()?.[this[kSlot]] as Partial<S> | undefined;
    if (scope === undefined) throw errors.noScope(this.name, operation, this[kHowToOpenAScope]);
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
 * May `values`, handed over to be adopted, become a scope as it is? Only an object of this copy's scope shape
 * (newScope()'s): the adopting methods are reachable under registered symbols, and anything else (a plain object
 * with Object.prototype above it, another copy's newScope) is copied, as run() copies.
 */
function hasScopeShape(values: object): boolean {
  return Object.getPrototypeOf(values) === scopePrototype;
}

declare const newScopeBrand: unique symbol;
/** A scope's values built in place by newScope(): runNewScope and runNewScopeFromRoot open the scope on it. */
export type NewScope<S extends object> = Partial<S> & { readonly [newScopeBrand]: true };

/**
 * An empty object to fill with a new scope's values, of the shape every scope of this copy has (see
 * scopePrototype), for runNewScope and runNewScopeFromRoot: for the code that opens a scope per request or per
 * job, where copying the values into the scope (Object.assign of one to eight fields) was a visible share of
 * Ambient's own work. The brand is in the type only: the methods adopt any object of this shape, so none but a
 * fresh newScope() may be handed to them (a scopeObject() would be shared with the scope it came from).
 */
export function newScope<S extends object>(): NewScope<S> {
  return Object.create(scopePrototype) as NewScope<S>;
}

/**
 * Runs `fn` in a new scope of `context` that is `scope` itself (built by newScope(), held by nobody else), in a
 * frame where no other Variable or Context holds a value: `runInRoot(() => context.run(scope, fn))` with one frame
 * entered instead of two and no copy. Every job a worker takes opens one (runJob).
 */
export function runNewScopeFromRoot<S extends object, R>(context: Context<S>, scope: NewScope<S>, fn: () => R): R {
  // Every ScopedContext has the method, this copy's or another's (one that predates `adopt` copies, as it must);
  // a context without it (an older copy's) gets the two-frame path.
  const own = (context as { [kRunFromRoot]?: (values: Partial<S>, fn: () => R, adopt: boolean) => R })[kRunFromRoot];
  if (typeof own === 'function') return own.call(context, scope, fn, true);
  return runInRoot(() => context.run(scope, fn));
}

/**
 * `context.run(scope, fn)` for a scope built by newScope() and held by nobody else: where no scope of `context` is
 * open, `scope` itself becomes the new scope, uncopied; inside one, its values are copied over the outer scope's as
 * run() copies them. Other Variables and Contexts keep their values, as in run(). Every HTTP request opens one
 * (@ambient/http-context), where copying its values into the scope (Object.assign) was about 300 instructions a
 * request of fastify's (Node 26.10).
 */
export function runNewScope<S extends object, R>(context: Context<S>, scope: NewScope<S>, fn: () => R): R {
  // A context made by an older copy of this package has no such method: its run() copies, as it always did.
  const own = (context as { [kRunNewScope]?: (values: Partial<S>, fn: () => R) => R })[kRunNewScope];
  if (typeof own === 'function') return own.call(context, scope, fn);
  return context.run(scope, fn);
}

/**
 * The object that holds the current scope's values of `context` (the one `set` writes to), or `undefined`
 * outside any scope: what @ambient/diagnostics watches to tell whether a finished request is still reachable.
 */
export function scopeObject<S extends object>(context: Context<S>): object | undefined {
  const own = (context as { [kScopeObject]?: () => object | undefined })[kScopeObject];
  return typeof own === 'function' ? own.call(context) : undefined;
}

/**
 * The value of `key` in the current scope of `context`, read without telling @ambient/diagnostics of a miss: for
 * code whose normal case is to run outside any scope (work enqueued at boot, a logger before its request's scope
 * opened, diagnostics themselves), where finding none is no lost context.
 */
export function peekContext<S extends object, K extends keyof S>(context: Context<S>, key: K): S[K] | undefined {
  return (scopeObject(context) as Partial<S> | undefined)?.[key];
}
