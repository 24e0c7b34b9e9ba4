// The API: POST /orders emits `order-placed` to the microservice over NATS and adds an invoice job to BullMQ. Each
// request's id reaches both without being passed: the NATS client and the queue carry the request's scope.
import 'reflect-metadata';
import { Body, Controller, Inject, Logger, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BullModule, InjectQueue } from '@nestjs/bullmq';
import { ClientsModule, type ClientProxy } from '@nestjs/microservices';
import type { Queue } from 'bullmq';
import { firstValueFrom } from 'rxjs';
import { AmbientModule } from '@ambient/nestjs';
import { invoices, logger, nats, orderPlaced, queues } from './shared.js';

@Controller('orders')
class OrdersController {
  private readonly logger = new Logger('Orders');

  constructor(
    @Inject('ORDERS') private readonly orders: ClientProxy,
    @InjectQueue(invoices) private readonly invoiceQueue: Queue,
  ) {}

  @Post()
  async place(@Body() order: { item: string }): Promise<{ placed: string }> {
    this.logger.log(`order for ${order.item} received`);
    await firstValueFrom(this.orders.emit(orderPlaced, order));
    await this.invoiceQueue.add('invoice', order);
    this.logger.log('order placed');
    return { placed: order.item };
  }
}

@Module({
  imports: [
    AmbientModule.forRoot(),
    ClientsModule.register([{ name: 'ORDERS', ...nats }]),
    queues,
    BullModule.registerQueue({ name: invoices }),
  ],
  controllers: [OrdersController],
})
class ApiModule {}

const app = await NestFactory.create(ApiModule, { logger });
await app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.send?.({ port: (app.getHttpServer().address() as { port: number }).port });
process.on('message', (message) => message === 'stop' && void app.close().then(() => process.exit(0)));
