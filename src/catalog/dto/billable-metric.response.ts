import { ApiProperty } from '@nestjs/swagger';
import { AGGREGATIONS, Aggregation, BillableMetric } from '../entities/billable-metric.entity';
import { PaginationResponse } from '../../common/dto/pagination.response';

/** A billable metric: what usage is measured for a product. Every key is always present. */
export class BillableMetricResponse {
  /** The billable metric's id. */
  @ApiProperty({ example: 'bm_01JD3YB3C6D9F2G5H8J1K4M7NP' })
  id: string;

  /** Always `billableMetric`. */
  @ApiProperty({ enum: ['billableMetric'], example: 'billableMetric' })
  object: 'billableMetric';

  /** True in live mode, false in test mode (the mode of the API key that created it). */
  @ApiProperty({ example: false })
  livemode: boolean;

  /** The product whose usage is measured. */
  @ApiProperty({ example: 'prod_01JD3Y7K2M5N8P1Q4R6S9T0VWX' })
  productId: string;

  /** The organization that sells the product. */
  @ApiProperty({ example: 'org_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  merchantId: string;

  /** The metric's name. */
  @ApiProperty({ example: 'Tokens' })
  name: string;

  /** Free text, or null. */
  @ApiProperty({ example: 'Tokens consumed by completions', nullable: true, type: String })
  description: string | null;

  /** The unit one measured quantity is counted in. */
  @ApiProperty({ example: 'token' })
  unit: string;

  /** How events are turned into a quantity. */
  @ApiProperty({ enum: AGGREGATIONS, example: 'SUM' })
  aggregation: Aggregation;

  /** The JSON path of the aggregated number; null for COUNT. */
  @ApiProperty({ example: '$.tokens', nullable: true, type: String })
  valueProperty: string | null;

  /** The type of usage event read, or null. */
  @ApiProperty({ example: 'llm.completion', nullable: true, type: String })
  eventType: string | null;

  /** When the metric was created (ISO 8601, UTC). */
  @ApiProperty({ example: '2026-01-31T12:00:00.000Z' })
  createdAt: string;

  /** When the metric last changed (ISO 8601, UTC). */
  @ApiProperty({ example: '2026-01-31T12:00:00.000Z' })
  updatedAt: string;
}

export class BillableMetricListResponse {
  /** One page of billable metrics, newest first. */
  @ApiProperty({ type: [BillableMetricResponse] })
  data: BillableMetricResponse[];

  @ApiProperty({ type: PaginationResponse })
  pagination: PaginationResponse;
}

export function toBillableMetricResponse(metric: BillableMetric): BillableMetricResponse {
  return {
    id: metric.id,
    object: 'billableMetric',
    livemode: metric.livemode,
    productId: metric.productId,
    merchantId: metric.organizationId,
    name: metric.name,
    description: metric.description,
    unit: metric.unit,
    aggregation: metric.aggregation,
    valueProperty: metric.valueProperty,
    eventType: metric.eventType,
    createdAt: metric.createdAt.toISOString(),
    updatedAt: metric.updatedAt.toISOString(),
  };
}
