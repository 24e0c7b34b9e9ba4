// Request A holding a pool's one connection while other requests wait for it: the hand-off every pool case
// starts from (pg.test.ts, mysql2.test.ts, events.test.ts).
import type mysql2 from 'mysql2';
import type pg from 'pg';
import { inRequest } from './requests.js';

/**
 * Request A takes the pool's one connection and holds it for `SELECT pg_sleep(0.2)`, releasing it in the
 * query's callback, or for 200 ms, releasing it from a timer of its own, or destroying it from that timer (an
 * error given to release() removes the client: the pool opens another for whoever waits); `held` resolves once
 * A has it, `done` once A released it.
 */
export function holdPgConnection(pool: pg.Pool, how: 'query callback' | 'own timer' | 'destroys from own timer') {
  let onHeld!: () => void;
  const held = new Promise<void>((resolve) => (onHeld = resolve));
  const done = new Promise<void>((resolve, reject) =>
    inRequest('A', () =>
      pool.connect((error, client, release) => {
        if (error) return reject(error);
        onHeld();
        const finish = () => {
          release(how === 'destroys from own timer' ? new Error('A is done with this client') : undefined);
          resolve();
        };
        // The sleep only makes the others wait; what they see never depends on how long it takes.
        if (how !== 'query callback') setTimeout(finish, 200);
        else client!.query('SELECT pg_sleep(0.2)', (queryError) => (queryError ? reject(queryError) : finish()));
      }),
    ),
  );
  return { held, done };
}

/**
 * Request A takes the pool's one connection and holds it for `SELECT SLEEP(0.2)`, releasing it in the query's
 * callback, or for 200 ms, releasing it from a timer of its own, or destroys it from that timer (the pool then
 * asks again for a waiting request from A's destroy: releaseConnection with no _pool); `held` resolves once A
 * has it.
 */
export function holdMysql2Connection(pool: mysql2.Pool, releasedFrom: 'query callback' | 'own timer' | 'destroy') {
  let onHeld!: () => void;
  const held = new Promise<void>((resolve) => (onHeld = resolve));
  const done = new Promise<void>((resolve, reject) =>
    inRequest('A', () =>
      pool.getConnection((error, connection) => {
        if (error) return reject(error);
        onHeld();
        const finish = () => {
          if (releasedFrom === 'destroy') connection.destroy();
          else connection.release();
          resolve();
        };
        // The sleep only makes the others wait; what they see never depends on how long it takes.
        if (releasedFrom === 'query callback') {
          connection.query('SELECT SLEEP(0.2)', (queryError) => (queryError ? reject(queryError) : finish()));
        } else setTimeout(finish, 200);
      }),
    ),
  );
  return { held, done };
}
