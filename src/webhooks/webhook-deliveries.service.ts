import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/errors';
import { ListResponse, toListResponse } from '../common/dto/list-query.dto';
import { ID_PREFIXES, isIdOf } from '../common/ids';
import { Tenant } from '../common/tenant';
import { Database } from '../database/database';
import { ListWebhookDeliveriesQueryDto } from './dto/list-webhook-deliveries-query.dto';
import {
  WebhookDeliveryAttemptResponse,
  toWebhookDeliveryAttemptResponse,
} from './dto/webhook-endpoint.response';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';

/** What an integrator reads of deliveries: the attempts made to one of its endpoints. */
@Injectable()
export class WebhookDeliveriesService {
  constructor(
    private readonly db: Database,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
  ) {}

  /** The attempts to a live endpoint of the tenant, newest first (404 for any other id). */
  async attempts(
    tenant: Tenant,
    id: string,
    query: ListWebhookDeliveriesQueryDto,
  ): Promise<ListResponse<WebhookDeliveryAttemptResponse>> {
    const [rows, total] = await this.db.snapshot(async (m) => {
      const endpoint = isIdOf(ID_PREFIXES.webhookEndpoint, id)
        ? await this.endpoints.findLive(m, tenant, id)
        : null;
      if (!endpoint) throw new NotFoundError('webhookEndpoint', id);
      return this.deliveries.attemptsPage(
        m,
        endpoint.id,
        { eventId: query.eventId, succeeded: query.succeeded },
        query.limit,
        query.offset,
      );
    });
    return toListResponse(
      rows.map((a) => toWebhookDeliveryAttemptResponse(a, tenant.livemode)),
      total,
      query,
    );
  }
}
