// A small shop API with four context bugs of the kinds users find with heap snapshots and mixed-up log lines in
// production. Every route answers correctly; what goes wrong is which request the work belongs to.
import express from 'express';
import { expressContext } from '@ambient/express-context';

export function createApp({ logger }) {
  const app = express();
  app.disable('x-powered-by');
  app.use(expressContext());

  // Bug 1, lost context: prices are looked up in batches, flushed by a timer started at boot, so the reply (and
  // its log line) runs outside any request: the line has no requestId.
  const priceBatch = [];
  const flusher = setInterval(() => priceBatch.splice(0).forEach((reply) => reply()), 10);
  flusher.unref();
  app.get('/prices/:sku', (req, res) => {
    priceBatch.push(() => {
      logger.info({ sku: req.params.sku }, 'price sent');
      res.json({ sku: req.params.sku, price: 42 });
    });
  });

  // Bug 2, crossed context: stock checks wait for the next stock request to flush them, so each response is sent
  // from another request's flow, and logged as that request.
  let stockBatch = [];
  app.get('/stock/:sku', (req, res) => {
    const waiting = stockBatch;
    stockBatch = [() => res.json({ sku: req.params.sku, inStock: true })];
    waiting.forEach((reply) => reply());
  });
  app.post('/stock/flush', (req, res) => {
    const waiting = stockBatch;
    stockBatch = [];
    waiting.forEach((reply) => reply());
    res.json({ flushed: waiting.length });
  });

  // Bugs 3 and 4, a timer that outlives its request, and the request it keeps alive: each report subscription
  // starts its own refresh interval, armed inside the request and never cleared.
  const subscriptions = [];
  app.post('/reports/:name/subscribe', (req, res) => {
    const subscription = { name: req.params.name, refreshed: 0 };
    subscriptions.push(subscription);
    setInterval(() => subscription.refreshed++, 60_000).unref();
    logger.info({ report: subscription.name }, 'subscribed');
    res.status(201).json(subscription);
  });

  return app;
}
