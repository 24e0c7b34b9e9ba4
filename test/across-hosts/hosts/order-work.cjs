// What a run on host b does with an order, whether a NATS message or a BullMQ job brought it: a PostgreSQL query
// in callback style (the record logged from pg's callback, which @ambient/drivers-context keeps in the run), then
// a call to host c's service with outgoing propagation. Each step logs one record.
const http = require('node:http');
const pg = require('pg');
const { guardDrivers } = require('@ambient/drivers-context');
const { outgoingPropagation } = require('@ambient/http-context');
const { setTimeout: sleep } = require('node:timers/promises');

const { POSTGRES, SERVICE_URL } = process.env;

/** The work of host b's runs, with the process's pool and agent. `log` is telemetry.cjs's. */
function orderWork(log) {
  guardDrivers({ pg });
  outgoingPropagation({ allowedOrigins: [SERVICE_URL] });
  const [host, port] = POSTGRES.split(':');
  const pool = new pg.Pool({ host, port: Number(port), user: 'postgres', database: 'postgres', max: 10 });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 20 });

  const query = (order) =>
    new Promise((resolve, reject) => {
      pool.query('SELECT $1::int AS "order", now() AS at', [order], (error, result) => {
        if (error) return reject(error);
        log('stock queried', { order, rows: result.rowCount });
        resolve();
      });
    });
  const callService = (order) =>
    new Promise((resolve, reject) => {
      http
        .get(`${SERVICE_URL}/stock/${order}`, { agent }, (response) => {
          response.resume();
          response.on('end', () =>
            response.statusCode === 200 ? resolve() : reject(new Error(`service answered ${response.statusCode}`)),
          );
        })
        .on('error', reject);
    });

  return {
    /** Handles `order`: logs `received`; a slow order waits to be killed; then queries and calls the service. */
    async work({ n, slow }, received) {
      log(received, { order: n });
      if (slow) await sleep(120_000);
      await query(n);
      await callService(n);
      log('service answered', { order: n });
    },
    close: () => Promise.all([pool.end(), agent.destroy()]),
  };
}

module.exports = { orderWork };
