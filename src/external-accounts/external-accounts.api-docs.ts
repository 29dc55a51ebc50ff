import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiParam } from '@nestjs/swagger';
import { ValidationFailedError } from '../common/errors';
import { assertOwnMerchant } from '../common/merchant';
import {
  ApiErrorResponse,
  ApiNotFound,
  EXAMPLE_ORGANIZATION_ID,
  ErrorCause,
  thrownBy,
} from '../platform/api-docs';
import { BankDetailsInput, checkBankDetails } from './bank-details';
import { CreateExternalAccountDto } from './dto/create-external-account.dto';
import { BANK_DETAILS_FIXED } from './dto/update-external-account.dto';
import {
  DeletedExternalBankAccountResponse,
  ExternalBankAccountListResponse,
  ExternalBankAccountResponse,
} from './dto/external-bank-account.response';
import { DuplicateExternalAccountError } from './external-accounts.errors';

/**
 * The request and error examples of each route for the OpenAPI document, each error made by the
 * code that answers it (account numbers redacted); the summaries are the controller's doc
 * comments, If-Match and 412 come with every PATCH and DELETE.
 */

const US = {
  countryCode: 'US',
  currency: 'USD',
  accountNumber: '000123456789',
  routingNumber: '110000000',
};
const DE = { countryCode: 'DE', currency: 'EUR', routingNumber: 'COBADEFFXXX' };

/** The 400 that checkBankDetails makes of the US account with `details` changed. */
function refused(summary: string, details: Partial<BankDetailsInput>): ErrorCause {
  const check = checkBankDetails({ ...US, ...details });
  if (check.ok) throw new Error(`"${summary}" is not refused`);
  return [summary, new ValidationFailedError(check.errors)];
}

/** What every route of one account (`/v0/externalAccounts/:id`) documents. */
const BY_ID = [
  ApiNotFound('externalBankAccount'),
  ApiParam({
    name: 'id',
    description: 'The external bank account id (eba_…)',
    example: 'eba_01JD3Y2Q6J8C4N1V9W5X7Z0EBA',
  }),
];

export const ApiCreateExternalAccount = () =>
  applyDecorators(
    // Runs as it is from Swagger UI: no organizationId (it defaults to yours; another one is a 403).
    ApiBody({
      type: CreateExternalAccountDto,
      examples: {
        us: {
          summary: 'A US checking account of an individual',
          value: {
            ...US,
            bankName: 'STRIPE TEST BANK',
            accountHolderName: 'Jenny Rosen',
            accountHolderType: 'individual',
            metadata: { payoutSchedule: 'weekly' },
          },
        },
        iban: {
          summary: 'A German IBAN of a company',
          value: {
            ...DE,
            bankName: 'Commerzbank',
            accountNumber: 'DE89370400440532013000',
            accountHolderName: 'Acme GmbH',
            accountHolderType: 'company',
          },
        },
      },
    }),
    ApiErrorResponse(
      'validation_error: a field, or a bank detail (the code says which rule)',
      refused('US routing number with a bad checksum', { routingNumber: '110000001' }),
      refused('US account number with letters', { accountNumber: '0001234ABCD' }),
      refused('IBAN that fails the ISO 13616 check', {
        ...DE,
        accountNumber: 'DE89370400440532013001',
      }),
      refused('IBAN of another country', { ...DE, accountNumber: 'GB82WEST12345698765432' }),
      ['A missing field', ValidationFailedError.field('routingNumber', 'required', 'is required')],
    ),
    ApiErrorResponse('forbidden: organizationId is another organization', [
      'organizationId of another organization',
      thrownBy(() =>
        assertOwnMerchant(
          EXAMPLE_ORGANIZATION_ID,
          'org_01JD3Y2Q6J8C4N1V9W5X7Z0OTH',
          'organizationId',
        ),
      ),
    ]),
    ApiErrorResponse(
      'conflict: the same country, routing and account number exist in your organization',
      ['The same account twice', new DuplicateExternalAccountError()],
    ),
  );

export const ApiGetExternalAccount = () =>
  applyDecorators(ApiOkResponse({ type: ExternalBankAccountResponse }), ...BY_ID);

export const ApiListExternalAccounts = () =>
  applyDecorators(ApiOkResponse({ type: ExternalBankAccountListResponse }));

export const ApiUpdateExternalAccount = () =>
  applyDecorators(
    ApiOkResponse({
      type: ExternalBankAccountResponse,
      description: 'External bank account updated successfully',
    }),
    ApiErrorResponse(
      'validation_error',
      [
        'Bank details never change',
        ValidationFailedError.field('routingNumber', 'field_not_allowed', BANK_DETAILS_FIXED),
      ],
      [
        'A client never verifies its own account',
        ValidationFailedError.field(
          'status',
          'status_set_by_verification',
          '"verified" is set by the verification process, never by a client: send "new" to submit the account for verification again',
        ),
      ],
    ),
    ...BY_ID,
  );

export const ApiDeleteExternalAccount = () =>
  applyDecorators(ApiOkResponse({ type: DeletedExternalBankAccountResponse }), ...BY_ID);
