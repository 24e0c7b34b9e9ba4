// The worker side, a process of its own: each run logs with a fresh requestId, the request that caused it and
// the chain's correlationId. The welcome mail enqueues an audit job: a chain request -> job -> job.
import { Queue, Worker } from 'bullmq';
import { bullmqProcessor } from '@ambient/bullmq-context';
import { connection, createLogger, queueName, telemetry } from './shared.mjs';

const logger = createLogger('worker', process.env.LOG_FILE ?? 1);
const followUps = new Queue(queueName, { connection, telemetry });

async function handle(job) {
  logger.info('job started');
  await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));
  if (job.name === 'welcome-mail') {
    logger.info({ to: job.data.email }, 'welcome mail sent');
    await followUps.add('audit', { event: 'welcome-mail-sent' });
  } else {
    logger.info({ event: job.data.event }, 'audited');
  }
}

// bullmqProcessor adds the attempt to each run's `job` field (BullMQ tells its telemetry only id and name).
const worker = new Worker(queueName, bullmqProcessor(handle), {
  connection,
  telemetry,
  concurrency: 5,
});
worker.on('completed', (job) => process.send?.({ completed: job.name }));
process.on('message', async (message) => {
  if (message !== 'stop') return;
  await worker.close();
  await followUps.close();
  process.exit(0);
});
await worker.waitUntilReady();
process.send?.('ready');
