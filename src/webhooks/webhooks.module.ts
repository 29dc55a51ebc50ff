import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { WebhookAttempt } from './entities/webhook-attempt.entity';
import { WebhookDelivery } from './entities/webhook-delivery.entity';
import { WebhookEndpoint } from './entities/webhook-endpoint.entity';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDeliveryJob } from './webhook-delivery.job';
import { WebhookFanOut } from './webhook-fan-out';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhooksController } from './webhooks.controller';

/**
 * Webhook endpoints and their delivery (docs/api.md §5.7), two jobs of the LeasePoller: the
 * fan-out queues each recorded event for the endpoints that select it, the delivery job sends it.
 */
@Module({
  imports: [
    EventsModule,
    TypeOrmModule.forFeature([WebhookEndpoint, WebhookDelivery, WebhookAttempt]),
  ],
  controllers: [WebhooksController],
  providers: [
    WebhookEndpointsService,
    WebhookEndpointsRepository,
    WebhookDeliveriesRepository,
    WebhookDeliveryJob,
    WebhookFanOut,
  ],
})
export class WebhooksModule {}
