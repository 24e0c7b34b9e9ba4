import { createContext, type Context } from './context.js';
import { sharedSingleton } from './storage.js';

/**
 * What every adapter puts in a request's scope. Add your own fields by augmentation:
 *
 *     declare module '@ambient/core' { interface RequestStore { userId?: string } }
 */
export interface RequestStore {
  requestId: string;
  traceId?: string;
  spanId?: string;
}

/**
 * The context every HTTP adapter opens and every consumer (loggers, tracers, your code) reads. One object per
 * process, shared by the ESM and CJS builds and by duplicate installs of @ambient/core.
 */
export const requestContext: Context<RequestStore> = sharedSingleton('requestContext', () =>
  createContext<RequestStore>({ name: 'requestContext' }),
);
