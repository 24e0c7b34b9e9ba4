import { Queue, Worker, FlowProducer, type Job } from 'bullmq';
import { expect, test } from 'tstyche';
import {
  bullmqTelemetry,
  requestContext,
  runInJobContext,
  type BullmqTelemetryOptions,
  type JobInfo,
} from '@ambient/bullmq-context';

const connection = { host: '127.0.0.1', port: 6379 };

test("bullmqTelemetry() is BullMQ's telemetry option for Queue, Worker and FlowProducer", () => {
  const telemetry = bullmqTelemetry();
  expect(new Queue('q', { connection, telemetry })).type.toBe<Queue>();
  expect(new Worker('q', async () => undefined, { connection, telemetry })).type.toBeAssignableTo<Worker>();
  expect(new FlowProducer({ connection, telemetry })).type.toBe<FlowProducer>();
});

test('its options are typed', () => {
  expect(bullmqTelemetry).type.toBeCallableWith({ link: 'schedulers' } satisfies BullmqTelemetryOptions);
  expect(bullmqTelemetry).type.toBeCallableWith({ link: true, opentelemetry: false, generateRequestId: () => 'id' });
  expect(bullmqTelemetry).type.not.toBeCallableWith({ link: 'always' });
  expect(bullmqTelemetry).type.not.toBeCallableWith({ generateRequestId: 'uuid' });
});

test("runInJobContext takes a BullMQ job and returns the callback's result", () => {
  const job = {} as Job<{ to: string }>;
  expect(runInJobContext(job, () => 42)).type.toBe<number>();
  expect(runInJobContext(job, async () => 'sent')).type.toBe<Promise<string>>();
  expect(runInJobContext).type.not.toBeCallableWith({ id: '1' }, () => 1);
});

test('inside a run, requestContext holds the chain and the job', () => {
  expect(requestContext.get('causationId')).type.toBe<string | undefined>();
  expect(requestContext.get('correlationId')).type.toBe<string | undefined>();
  expect(requestContext.get('job')).type.toBe<JobInfo | undefined>();
});
