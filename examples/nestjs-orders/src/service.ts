// The orders microservice, on NATS: each `order-placed` event runs in a scope of its own, caused by the request
// that emitted it.
import 'reflect-metadata';
import { Controller, Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, Payload, type MicroserviceOptions } from '@nestjs/microservices';
import { AmbientModule } from '@ambient/nestjs';
import { logger, nats, orderPlaced } from './shared.js';

@Controller()
class StockController {
  private readonly logger = new Logger('Stock');

  @EventPattern<string>(orderPlaced)
  async reserve(@Payload() order: { item: string }): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 10));
    this.logger.log(`${order.item} reserved`);
  }
}

@Module({ imports: [AmbientModule.forRoot()], controllers: [StockController] })
class ServiceModule {}

const service = await NestFactory.createMicroservice<MicroserviceOptions>(ServiceModule, {
  ...nats,
  logger,
});
await service.listen();
process.send?.({ ready: true });
process.on('message', (message) => message === 'stop' && void service.close().then(() => process.exit(0)));
