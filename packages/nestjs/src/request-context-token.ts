import type { Context, RequestStore } from '@ambient/core';

/**
 * `requestContext` as a Nest provider: a service asks for it by type, and a test module hands it another
 * context (`createContext<RequestStore>()`) in its place.
 *
 *     constructor(private readonly context: RequestContext) {}
 *
 * A class as well as a type: Nest finds a constructor parameter's provider by the value its type annotation names
 * (TypeScript's `emitDecoratorMetadata`), so the name must be a class; the type is requestContext's.
 */
export const RequestContext = class RequestContext {} as unknown as abstract new () => Context<RequestStore>;
export type RequestContext = Context<RequestStore>;
