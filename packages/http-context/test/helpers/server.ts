import type { Server } from 'node:http';
import { serveOnLoopback, type RunningServer } from '@ambient/conformance';

const running = new WeakMap<Server, RunningServer>();

/** Listens on 127.0.0.1 on a free port. */
export async function listen(server: Server): Promise<number> {
  const serving = await serveOnLoopback(server);
  running.set(server, serving);
  return serving.port;
}

/** Closes the server and every connection still open on it (keep-alive ones included). */
export function close(server: Server): Promise<void> {
  return running.get(server)?.close() ?? Promise.resolve();
}
