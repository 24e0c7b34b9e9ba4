import { Queue, Worker, FlowProducer, type Job } from 'bullmq';
import { expect, test } from 'tstyche';
import { requestContext, type JobInfo } from '@ambient/core';
import { bullmqProcessor, bullmqTelemetry, type BullmqTelemetryOptions } from '@ambient/bullmq-context';

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

test("bullmqProcessor keeps a processor's parameters and result, and is a Worker's processor", () => {
  const processor = bullmqProcessor(async (job: Job<{ to: string }>, token?: string) => `${job.data.to} ${token}`);
  expect(processor).type.toBe<(job: Job<{ to: string }>, token?: string) => Promise<string>>();
  expect(new Worker('q', processor, { connection })).type.toBeAssignableTo<Worker>();
  expect(bullmqProcessor).type.not.toBeCallableWith((job: { id: string }) => job.id);
});

test('inside a run, requestContext holds the chain and the job', () => {
  expect(requestContext.get('causationId')).type.toBe<string | undefined>();
  expect(requestContext.get('correlationId')).type.toBe<string | undefined>();
  expect(requestContext.get('job')).type.toBe<JobInfo | undefined>();
});
