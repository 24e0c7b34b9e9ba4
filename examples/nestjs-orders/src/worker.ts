// The invoice worker: a @nestjs/bullmq processor. Each job runs in a scope of its own, caused by the request that
// added it (BullModule.forRoot's telemetry, which @nestjs/bullmq 12 gives its workers).
import 'reflect-metadata';
import { Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BullModule, OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import type { Job } from 'bullmq';
import { invoices, logger, queues } from './shared.js';

@Processor(invoices)
class InvoiceProcessor extends WorkerHost {
  private readonly logger = new Logger('Invoices');

  async process(job: Job<{ item: string }>): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 10));
    this.logger.log(`invoice for ${job.data.item} sent`);
  }

  @OnWorkerEvent('completed')
  completed(): void {
    process.send?.({ completed: true });
  }
}

@Module({ imports: [queues, BullModule.registerQueue({ name: invoices })], providers: [InvoiceProcessor] })
class WorkerModule {}

const worker = await NestFactory.createApplicationContext(WorkerModule, { logger });
await worker.init();
process.send?.({ ready: true });
process.on('message', (message) => message === 'stop' && void worker.close().then(() => process.exit(0)));
