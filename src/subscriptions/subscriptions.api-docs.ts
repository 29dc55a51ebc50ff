import { applyDecorators } from '@nestjs/common';
import { ApiBody } from '@nestjs/swagger';
import { ValidationFailedError } from '../common/errors';
import { ApiErrorResponse } from '../platform/api-docs';
import { CreateSubscriptionDto, TerminateSubscriptionDto } from './dto/subscription.dto';
import {
  MetricAlreadySubscribedError,
  SubscriptionTerminatedError,
  backdatedTooFar,
  currencyMismatch,
} from './subscriptions.errors';

/**
 * The request examples and error examples of subscriptions for the OpenAPI document. Replace
 * the ids with a customer and a plan of yours (the 400 names the field otherwise).
 */

const SUB = 'sub_01JD3Y2Q6J8C4N1V9W5X7Z0SUB';
const METRIC = 'bm_01JD3Y2Q6J8C4N1V9W5X7Z0MTR';

const customerNotFound = ValidationFailedError.field(
  'customerId',
  'customer_not_found',
  "no customer 'cus_01JD3Y2Q6J8C4N1V9W5X7Z0CUS' in your organization (in this mode)",
  'CUSTOMER_NOT_FOUND',
);
const planNotFound = ValidationFailedError.field(
  'planId',
  'plan_not_found',
  "no plan 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0PLN' in your organization (in this mode), or it was deleted",
  'PLAN_NOT_FOUND',
);

export const ApiCreateSubscription = () =>
  applyDecorators(
    ApiBody({
      type: CreateSubscriptionDto,
      examples: {
        now: {
          summary: 'Starts now (replace the ids with a customer and a plan of yours)',
          value: {
            customerId: 'cus_01JD3Y2Q6J8C4N1V9W5X7Z0CUS',
            planId: 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0PLN',
          },
        },
        future: {
          summary: 'Pending until a later start',
          value: {
            customerId: 'cus_01JD3Y2Q6J8C4N1V9W5X7Z0CUS',
            planId: 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0PLN',
            startedAt: '2030-01-01T00:00:00.000Z',
            metadata: { seats: 10 },
          },
        },
      },
    }),
    ApiErrorResponse(
      'validation_error: a field, a customer or plan that is not yours, or a start more than 90 days ago',
      ['customerId is not a customer of yours', customerNotFound],
      ['planId is not a live plan of yours', planNotFound],
      ['startedAt too far back', backdatedTooFar(new Date('2026-11-02T00:00:00.000Z'))],
    ),
    ApiErrorResponse('conflict: the customer already subscribes to a metric of this plan', [
      'one metric, one subscription',
      new MetricAlreadySubscribedError(METRIC, SUB),
    ]),
  );

export const ApiUpdateSubscriptionErrors = () =>
  applyDecorators(
    ApiErrorResponse(
      'validation_error: a field, a plan that is not yours, or a plan of another currency',
      ['planId in another currency', currencyMismatch('USD', 'EUR')],
      ['planId is not a live plan of yours', planNotFound],
    ),
    ApiErrorResponse(
      'conflict: the subscription is terminated, or the new plan prices a metric another subscription has',
      ['terminated', new SubscriptionTerminatedError(SUB)],
      ['one metric, one subscription', new MetricAlreadySubscribedError(METRIC, SUB)],
    ),
  );

export const ApiTerminateSubscription = () =>
  applyDecorators(
    ApiBody({
      type: TerminateSubscriptionDto,
      examples: {
        periodEnd: {
          summary: 'At the end of the current period',
          value: { reason: 'Customer asked to cancel', at: 'periodEnd' },
        },
        now: { summary: 'At once', value: { reason: 'Fraud', at: 'now' } },
      },
    }),
    ApiErrorResponse('conflict: the subscription is terminated already', [
      'terminated',
      new SubscriptionTerminatedError(SUB),
    ]),
  );
