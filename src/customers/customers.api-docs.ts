import { applyDecorators } from '@nestjs/common';
import { ApiBody } from '@nestjs/swagger';
import { ApiErrorResponse } from '../platform/api-docs';
import {
  CustomerHasSubscriptionsError,
  DuplicateCustomerError,
  TestClockFullError,
  TestClockInUseError,
  testClockInLiveMode,
  testClockNotFound,
  testClocksInLiveMode,
} from './customers.errors';
import { CreateCustomerDto } from './dto/create-customer.dto';
import { AdvanceTestClockDto, CreateTestClockDto } from './dto/test-clock.dto';

/**
 * The request examples and error examples of customers and test clocks for the OpenAPI
 * document. Request examples run as they are from Swagger UI (an externalId runs once: the
 * second time is a 409).
 */

const CLOCK = 'clock_01JD3Y2Q6J8C4N1V9W5X7Z0CLK';

export const ApiCreateCustomer = () =>
  applyDecorators(
    ApiBody({
      type: CreateCustomerDto,
      examples: {
        minimal: {
          summary: 'A customer with a name and an email address',
          value: { name: 'Jane Cooper', email: 'jane@example.com' },
        },
        full: {
          summary: 'With your own id, an address and a tax id',
          value: {
            name: 'Acme GmbH',
            email: 'billing@acme.example',
            externalId: 'crm-4711',
            address: { line1: 'Hauptstraße 1', city: 'Berlin', postalCode: '10115', country: 'DE' },
            taxId: 'DE123456789',
            metadata: { segment: 'startup' },
          },
        },
      },
    }),
    ApiErrorResponse(
      'conflict: another customer has this externalId',
      ['externalId taken', new DuplicateCustomerError('crm-4711')],
      ['the test clock holds 100 customers already', new TestClockFullError(CLOCK, 100)],
    ),
  );

export const ApiCustomerCreateBadRequest = () =>
  ApiErrorResponse(
    'validation_error: a field, a testClockId with a live key, or a clock that is not yours',
    ['testClockId with a live key', testClockInLiveMode()],
    ['testClockId is not a clock of yours', testClockNotFound(CLOCK)],
  );

export const ApiUpdateCustomerErrors = () =>
  ApiErrorResponse('conflict: another customer has this externalId', [
    'externalId taken',
    new DuplicateCustomerError('crm-4711'),
  ]);

export const ApiDeleteCustomerErrors = () =>
  ApiErrorResponse('conflict: the customer has an active or pending subscription', [
    'an active subscription',
    new CustomerHasSubscriptionsError('cus_01JD3Y2Q6J8C4N1V9W5X7Z0CUS'),
  ]);

export const ApiCreateTestClock = () =>
  ApiBody({
    type: CreateTestClockDto,
    examples: {
      newYear: {
        summary: 'A clock that starts on 1 January 2027',
        value: { frozenTime: '2027-01-01T00:00:00.000Z', name: 'Annual renewal' },
      },
    },
  });

export const ApiAdvanceTestClock = () =>
  ApiBody({
    type: AdvanceTestClockDto,
    examples: {
      oneMonth: {
        summary: "One month later (replace with a time after your clock's, within two years)",
        value: { frozenTime: '2027-02-01T00:00:00.000Z' },
      },
    },
  });

/** 404 of the collection's routes (create, list) with a live key. */
export const ApiTestClocksTestModeOnly = () =>
  ApiErrorResponse('not_found: test clocks exist in test mode only (a live key)', [
    'A live key',
    testClocksInLiveMode(),
  ]);

export const ApiDeleteTestClockErrors = () =>
  ApiErrorResponse('conflict: the clock still has customers', [
    'customers remain',
    new TestClockInUseError(CLOCK),
  ]);
