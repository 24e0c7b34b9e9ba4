// One of host b's two BullMQ workers (the test starts two processes): its runs through bullmqTelemetry(), the
// processor wrapped in bullmqProcessor() so a run's `job` names its attempt. A worker killed mid-job leaves the
// job's lock to expire; the other worker's stalled-job check moves it back to wait and runs it again. The lock
// outlasts the test's link outage, so a worker cut off for that long keeps its jobs; short enough that a
// killed worker's job comes back within the round.
const { log, exitOnTerm } = require('./telemetry.cjs');
const { Worker } = require('bullmq');
const { bullmqProcessor, bullmqTelemetry } = require('@ambient/bullmq-context');
const { orderWork } = require('./order-work.cjs');

const { REDIS } = process.env;
const { work, close } = orderWork(log);
const [host, port] = REDIS.split(':');

const worker = new Worker(
  'orders',
  // A slow order is slow on its first attempt only: the retry after a kill completes.
  bullmqProcessor((job) => work({ ...job.data, slow: job.data.slow && job.attemptsStarted <= 1 }, 'job received')),
  {
    connection: { host, port: Number(port), maxRetriesPerRequest: null },
    telemetry: bullmqTelemetry(),
    concurrency: 50,
    lockDuration: 5000,
    stalledInterval: 2000,
  },
);
worker.on('failed', (job, error) => console.error(`job ${job?.id} failed: ${error.message}`));
worker.waitUntilReady().then(() => console.log('working on orders'));
exitOnTerm(async () => {
  await worker.close();
  await close();
});
