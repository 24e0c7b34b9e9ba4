import type { CoreCopy } from '@ambient/core/internal';

/** A timer armed inside a request and still pending after the request closed. */
export interface PendingTimer {
  readonly kind: 'setTimeout' | 'setInterval' | 'setImmediate';
  /** Where it was armed: the stack, without Ambient's, Node's or node_modules' frames. */
  readonly stack: string;
}

/** What each report carries, by kind; `code` is the warning's. */
export type DiagnosticReport =
  | {
      readonly kind: 'capabilities';
      readonly code: 'WARN_AMBIENT_DIAGNOSTICS_ON';
      readonly capabilities: Capabilities;
    }
  | {
      readonly kind: 'lost';
      readonly code: 'WARN_AMBIENT_CONTEXT_LOST';
      /** The context read (`requestContext`, or yours). */
      readonly context: string;
      /** The first frame outside Ambient: file, line and column. */
      readonly site: string;
      readonly stack: string;
    }
  | {
      readonly kind: 'crossed';
      readonly code: 'WARN_AMBIENT_CONTEXT_CROSSED';
      /** The boundary: `mysql2:pool:connect callback`, or the place an adapter names. */
      readonly place: string;
      /** The first frame of the application's code there (file, line and column), and the stack from it. */
      readonly site: string;
      readonly stack: string;
      /** The request the code belongs to. */
      readonly ownerRequestId: string;
      /** The request whose context it ran in, or `undefined` for none. */
      readonly foundRequestId: string | undefined;
    }
  | {
      readonly kind: 'retained';
      readonly code: 'WARN_AMBIENT_SCOPE_RETAINED';
      readonly requestId: string;
      readonly route: string;
      /** Milliseconds since the response closed. */
      readonly ageMs: number;
      /** How many closed requests' scopes are still reachable past a full collection, this one included. */
      readonly pending: number;
    }
  | {
      readonly kind: 'timers';
      readonly code: 'WARN_AMBIENT_TIMER_OUTLIVED_REQUEST';
      readonly requestId: string;
      readonly route: string;
      readonly timers: readonly PendingTimer[];
    }
  | {
      readonly kind: 'enterWith';
      readonly code: 'WARN_AMBIENT_ROOT_ENTER_WITH';
      readonly site: string;
      readonly stack: string;
    }
  | {
      readonly kind: 'sharedDataLoader';
      readonly code: 'WARN_AMBIENT_SHARED_DATALOADER';
      /** The loader's `name` option, where it was given one. */
      readonly loader: string | undefined;
      /** Where the loader was created (`new DataLoader(…)`): the application's first frame, and the stack from it. */
      readonly site: string;
      readonly stack: string;
      /** The request whose load() joined a batch another request opened. */
      readonly ownerRequestId: string;
      /** The request that opened the batch: its scope is the one the batch function runs in. */
      readonly foundRequestId: string;
    }
  | {
      readonly kind: 'copies';
      readonly code: 'WARN_AMBIENT_TWO_COPIES';
      readonly copies: readonly CoreCopy[];
    };

export type DiagnosticKind = DiagnosticReport['kind'];

/** What this process runs on, as the capability line says it. */
export interface Capabilities {
  /** The runtime and its version: `Node 24.21.0`, `Bun 1.4.5`, `Deno 2.9.6`. */
  readonly runtime: string;
  /**
   * How context propagates: AsyncContextFrame (Node 24+), async_hooks, a native AsyncContext, or the runtime's
   * own AsyncLocalStorage (Bun, Deno).
   */
  readonly implementation: 'AsyncContextFrame' | 'async_hooks' | 'AsyncContext' | 'runtime';
  /** Does AsyncLocalStorage have `withScope` (scoped enter with `using`)? */
  readonly withScope: boolean;
  /** Is a native `globalThis.AsyncContext` present? */
  readonly nativeAsyncContext: boolean;
  /** The TracingChannels @ambient/drivers-context binds, and the driver methods it patches. */
  readonly guardedChannels: readonly string[];
  readonly patchedMethods: readonly string[];
  /** How many copies of @ambient/core are loaded. */
  readonly coreCopies: number;
  /** What Ambient cannot do on this runtime, each in a few words; empty on Node. */
  readonly missing: readonly string[];
}

/** The counts `report()` returns: how many of each report so far, and what is pending now. */
export interface DiagnosticsCounts {
  readonly lost: number;
  readonly crossed: number;
  readonly retained: number;
  readonly timers: number;
  readonly enterWith: number;
  readonly copies: number;
  readonly sharedDataLoader: number;
  /** Requests open now. */
  readonly openRequests: number;
  /** Closed requests whose scopes are still reachable past a full collection now. */
  readonly retainedNow: number;
  /** Closed requests still being watched (not yet collected). */
  readonly watched: number;
}
