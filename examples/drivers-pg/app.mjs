// express with expressContext, pino with correlationMixin, and guardDrivers: pg's callbacks run in the request
// that made the call, and each finished query is logged (queryLogListener) with that request's id.
import { once } from 'node:events';
import express from 'express';
import pg from 'pg';
import pino from 'pino';
import { guardDrivers, queryLogListener } from '@ambient/drivers-context';
import { expressContext } from '@ambient/express-context';
import { correlationMixin } from '@ambient/pino-context';

// Stands in for an orders table, so that the example needs no schema: three orders for any customer.
const ordersOf = 'SELECT id, $1::text AS customer, id * 12.5 AS total FROM generate_series(1, 3) AS id';

export function createApp({ logDestination = 1, connectionString } = {}) {
  const destination = pino.destination(logDestination);
  const logger = pino({ mixin: correlationMixin(), base: undefined }, destination);
  // Once, at startup, before any pool is used: pg publishes no diagnostics channels, so its methods are patched.
  const guard = guardDrivers({ pg, onQuery: queryLogListener(logger) });
  logger.info({ patched: guard.patched }, 'pg guarded');
  // Two connections for more concurrent requests than that: a request's connect callback is called when another
  // request releases a connection, from inside that request's own callback (brianc/node-postgres#3650).
  const pool = new pg.Pool({ connectionString, max: 2 });

  const app = express();
  app.use(expressContext());
  app.get('/customers/:name/orders', (req, res, next) => {
    const customer = req.params.name;
    logger.info({ customer }, 'listing orders');
    pool.connect((error, client, release) => {
      if (error) return next(error);
      client.query('BEGIN', (error) => {
        if (error) return next(release(error));
        client.query(ordersOf, [customer], (error, result) => {
          if (error) return next(release(error));
          client.query('COMMIT', (error) => {
            release(error);
            if (error) return next(error);
            logger.info({ customer, orders: result.rowCount }, 'orders listed');
            res.json({ customer, orders: result.rows });
          });
        });
      });
    });
  });

  return {
    app,
    close: async () => {
      await pool.end();
      guard.dispose();
      // pino writes asynchronously, and its flush() does not wait for a write under way: end() does.
      destination.end();
      await once(destination, 'close');
    },
  };
}
