import { applyDecorators } from '@nestjs/common';
import { ApiBody } from '@nestjs/swagger';
import { ValidationFailedError } from '../common/errors';
import { ApiErrorResponse } from '../platform/api-docs';
import { CreateBillableMetricDto } from './dto/create-billable-metric.dto';
import { CreateProductDto } from './dto/create-product.dto';

/**
 * The request examples and error examples of the catalog's routes for the OpenAPI document.
 * Request examples run as they are from Swagger UI: no merchantId (it defaults to the caller's
 * organization); a productId must name one of your products (the 400 names the field).
 */

const PRODUCT = 'prod_01JD3Y2Q6J8C4N1V9W5X7Z0PRD';

export const ApiCreateProductBody = () =>
  ApiBody({
    type: CreateProductDto,
    examples: {
      assistant: {
        summary: 'A product billed by usage',
        value: {
          name: 'AI Assistant',
          description: 'Chat assistant billed by tokens',
          metadata: { tier: 'gold', seats: 5 },
        },
      },
    },
  });

export const ApiCreateBillableMetric = () =>
  applyDecorators(
    ApiBody({
      type: CreateBillableMetricDto,
      examples: {
        tokens: {
          summary: 'Tokens summed from usage events (replace productId with one of your products)',
          value: {
            productId: PRODUCT,
            name: 'Tokens',
            unit: 'token',
            aggregation: 'SUM',
            valueProperty: '$.tokens',
            eventType: 'llm.completion',
            description: 'Tokens consumed by completions',
          },
        },
        calls: {
          summary: 'API calls counted (COUNT reads no valueProperty)',
          value: { productId: PRODUCT, name: 'API calls', unit: 'call', aggregation: 'COUNT' },
        },
      },
    }),
    ApiErrorResponse(
      'validation_error: a field, or a productId that is not one of your products',
      [
        'productId is not a product of yours',
        ValidationFailedError.field(
          'productId',
          'product_not_found',
          `no product '${PRODUCT}' in your organization`,
          'PRODUCT_NOT_FOUND',
        ),
      ],
      [
        'valueProperty sent with COUNT',
        ValidationFailedError.field(
          'valueProperty',
          'field_not_allowed',
          'must be omitted when aggregation is COUNT: COUNT counts events and reads no property',
        ),
      ],
    ),
  );
