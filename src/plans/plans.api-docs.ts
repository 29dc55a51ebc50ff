import { applyDecorators } from '@nestjs/common';
import { FieldError, ValidationFailedError } from '../common/errors';
import { ApiErrorResponse, ErrorCause, thrownBy } from '../platform/api-docs';
import { TAX_RATE_MESSAGE } from './dto/tax.dto';
import { PriceCandidate, assertPricesUsable, checkPriceIdList } from './plan-price-list';
import { parsePriceProperties } from './price-properties';
import { PlanDeletedError, PriceDeletedError, PriceInUseError } from './plans.errors';

/**
 * The error examples of the plan and price routes for the OpenAPI document, each made by the
 * rule that answers it (assertPricesUsable, parsePriceProperties, the domain errors) where that
 * rule can run without a database. The platform's answers come with every route.
 */

const PRODUCT = 'prod_01JD3Y2Q6J8C4N1V9W5X7Z0PRD';
const OTHER_PRODUCT = 'prod_01JD3Y2Q6J8C4N1V9W5X7Z0OTH';
const PLAN = 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0PLN';
const OTHER_PLAN = 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0OTH';
const PRICE = 'price_01JD3Y2Q6J8C4N1V9W5X7Z0PRC';
const PRICE_2 = 'price_01JD3Y2Q6J8C4N1V9W5X7Z0PR2';
const METRIC = 'bm_01JD3Y2Q6J8C4N1V9W5X7Z0BMX';

const candidate = (id: string, over: Partial<PriceCandidate> = {}): PriceCandidate => ({
  id,
  planId: null,
  deletedAt: null,
  billableMetricId: METRIC,
  metricProductId: PRODUCT,
  ...over,
});

/** What assertPricesUsable throws for these listed prices. */
const pricesRule = (ids: string[], found: PriceCandidate[]) =>
  thrownBy(() => assertPricesUsable(ids, new Map(found.map((p) => [p.id, p])), PRODUCT, null));

const field = (error: FieldError) => new ValidationFailedError([error]);

const PRICE_LIST_CAUSES: ErrorCause[] = [
  ['A price that is not yours, or does not exist', pricesRule([PRICE], [])],
  [
    "A price for another product's billable metric",
    pricesRule([PRICE], [candidate(PRICE, { metricProductId: OTHER_PRODUCT })]),
  ],
  [
    'Two prices for one billable metric',
    pricesRule([PRICE, PRICE_2], [candidate(PRICE), candidate(PRICE_2)]),
  ],
  ['A price listed twice', thrownBy(() => checkPriceIdList([PRICE, PRICE]))],
];

const TAX_RATE_CAUSE: ErrorCause = [
  'A tax rate sent as a number',
  field({ field: 'tax.rate', code: 'invalid_decimal', message: TAX_RATE_MESSAGE }),
];

const PRICE_IN_ANOTHER_PLAN: ErrorCause = [
  'A listed price is in another live plan',
  pricesRule([PRICE], [candidate(PRICE, { planId: OTHER_PLAN })]),
];

export const ApiCreatePlanErrors = () =>
  applyDecorators(
    ApiErrorResponse(
      'validation_error: a field, or a rule of the price list (the code names it)',
      [
        'productId is not a product of yours',
        field({
          field: 'productId',
          code: 'product_not_found',
          message: `no product '${PRODUCT}' in your organization`,
        }),
      ],
      ...PRICE_LIST_CAUSES,
      TAX_RATE_CAUSE,
    ),
    ApiErrorResponse(
      'conflict: PRICE_IN_USE, a listed price is in another live plan',
      PRICE_IN_ANOTHER_PLAN,
    ),
  );

export const ApiUpdatePlanErrors = () =>
  applyDecorators(
    ApiErrorResponse(
      'validation_error: a field, a field that never changes, or a rule of the price list',
      [
        'productId never changes',
        field({
          field: 'productId',
          code: 'field_not_allowed',
          message: 'never changes; create a new plan for another product',
        }),
      ],
      ...PRICE_LIST_CAUSES,
      TAX_RATE_CAUSE,
    ),
    ApiErrorResponse(
      'conflict: PLAN_DELETED (a deleted plan no longer changes) or PRICE_IN_USE',
      ['The plan was deleted', new PlanDeletedError(PLAN)],
      PRICE_IN_ANOTHER_PLAN,
    ),
  );

const properties = parsePriceProperties('standard', { unitPrice: 0.25 });

export const ApiCreatePriceErrors = () =>
  ApiErrorResponse(
    'validation_error: a field, or properties that do not fit the model',
    [
      'billableMetricId is not a billable metric of yours',
      field({
        field: 'billableMetricId',
        code: 'billable_metric_not_found',
        message: `no billable metric '${METRIC}' in your organization`,
      }),
    ],
    [
      'An amount sent as a number',
      new ValidationFailedError(properties.ok ? [] : properties.errors),
    ],
  );

export const ApiUpdatePriceErrors = () =>
  ApiErrorResponse('conflict: PRICE_DELETED, a deleted price no longer changes', [
    'The price was deleted',
    new PriceDeletedError(PRICE),
  ]);

export const ApiDeletePriceErrors = () =>
  ApiErrorResponse('conflict: PRICE_IN_USE, the price is in a live plan', [
    'The price is in a live plan',
    new PriceInUseError(
      `Price ${PRICE} is in plan ${PLAN}; remove it from the plan (PATCH /v0/plans/${PLAN}) or delete the plan first`,
    ),
  ]);
