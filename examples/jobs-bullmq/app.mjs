// The web side: express with expressContext; the signup route enqueues a welcome mail and never passes ids on.
import express from 'express';
import { Queue } from 'bullmq';
import { expressContext } from '@ambient/express-context';
import { connection, createLogger, queueName, telemetry } from './shared.mjs';

export function createApp({ logDestination } = {}) {
  const logger = createLogger('web', logDestination);
  const queue = new Queue(queueName, { connection, telemetry });
  const app = express();
  app.use(expressContext());
  app.use(express.json());
  app.post('/signup', async (req, res) => {
    logger.info({ email: req.body.email }, 'signing up');
    const job = await queue.add('welcome-mail', { email: req.body.email });
    logger.info({ jobId: job.id }, 'welcome mail queued');
    res.status(202).json({ queued: job.id });
  });
  return { app, queue };
}
