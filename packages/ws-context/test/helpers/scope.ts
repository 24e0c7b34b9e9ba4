// What the ws and socket.io tests read of a scope: the fields their handlers set, the trace their clients send.
import { requestContext, type RequestStore } from '@ambient/core';

declare module '@ambient/core' {
  interface RequestStore {
    /** What a connection listener sets, and its messages see. */
    userId?: string;
    /** What a message handler or a socket middleware sets, seen in that message's scope only. */
    handled?: string;
    checked?: boolean;
  }
}

export const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
export const spanId = '00f067aa0ba902b7';
export const uuidv7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const snapshot = () => requestContext.snapshot() as RequestStore | undefined;
