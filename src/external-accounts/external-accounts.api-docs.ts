import { applyDecorators } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiParam,
} from '@nestjs/swagger';
import { ApiNotFound, ErrorEnvelope } from '../platform/api-docs';
import { CreateExternalAccountDto } from './dto/create-external-account.dto';
import {
  DeletedExternalBankAccountResponse,
  ExternalBankAccountListResponse,
  ExternalBankAccountResponse,
} from './dto/external-bank-account.response';

/**
 * The error examples of each route for the OpenAPI document (account numbers redacted); the
 * summaries are the controller's doc comments, If-Match and 412 come with every PATCH and DELETE.
 */

function errorBody(
  error: string,
  code: string,
  message: string,
  errors?: { field: string; code: string; message: string }[],
) {
  return {
    error,
    code,
    message,
    ...(errors ? { errors } : {}),
    requestId: 'req_01JD3Y2Q6J8C4N1V9W5X7Z0REQ',
  };
}

function fieldError(summary: string, field: string, code: string, message: string) {
  return {
    summary,
    value: errorBody('validation_error', code.toUpperCase(), 'Request validation failed', [
      { field, code, message },
    ]),
  };
}

const ID_PARAM = ApiParam({
  name: 'id',
  description: 'The external bank account id (eba_…)',
  example: 'eba_01JD3Y2Q6J8C4N1V9W5X7Z0EBA',
});

export const ApiCreateExternalAccount = () =>
  applyDecorators(
    // Runs as it is from Swagger UI: no organizationId (it defaults to yours; another one is a 403).
    ApiBody({
      type: CreateExternalAccountDto,
      examples: {
        us: {
          summary: 'A US checking account of an individual',
          value: {
            countryCode: 'US',
            bankName: 'STRIPE TEST BANK',
            currency: 'USD',
            accountNumber: '000123456789',
            routingNumber: '110000000',
            accountHolderName: 'Jenny Rosen',
            accountHolderType: 'individual',
            metadata: { payoutSchedule: 'weekly' },
          },
        },
        iban: {
          summary: 'A German IBAN of a company',
          value: {
            countryCode: 'DE',
            bankName: 'Commerzbank',
            currency: 'EUR',
            accountNumber: 'DE89370400440532013000',
            routingNumber: 'COBADEFFXXX',
            accountHolderName: 'Acme GmbH',
            accountHolderType: 'company',
          },
        },
      },
    }),
    ApiBadRequestResponse({
      type: ErrorEnvelope,
      description: 'Validation failed: a field, or a bank detail (the code says which rule)',
      examples: {
        routing: fieldError(
          'US routing number with a bad checksum',
          'routingNumber',
          'routing_number_invalid',
          'must be a 9-digit ABA routing number (valid prefix and checksum)',
        ),
        account: fieldError(
          'US account number with letters',
          'accountNumber',
          'account_number_invalid',
          'must be 4-17 digits for a US account',
        ),
        iban: fieldError(
          'IBAN that fails the ISO 13616 check',
          'accountNumber',
          'iban_invalid',
          'looks like an IBAN (two letters, two digits) but is not a valid one: check its length and digits (ISO 13616 mod-97 check)',
        ),
        ibanCountry: fieldError(
          'IBAN of another country',
          'accountNumber',
          'iban_country_mismatch',
          'is an IBAN of another country than countryCode DE: an IBAN begins with the code of its country',
        ),
        required: fieldError('A missing field', 'routingNumber', 'required', 'is required'),
      },
    }),
    ApiForbiddenResponse({
      type: ErrorEnvelope,
      description: 'organizationId is another organization',
      example: errorBody(
        'forbidden',
        'FORBIDDEN',
        'organizationId must be your own organization (or left out): you cannot add external accounts to another one',
      ),
    }),
    ApiConflictResponse({
      type: ErrorEnvelope,
      description: 'The same country, routing and account number exist in your organization',
      example: errorBody(
        'conflict',
        'DUPLICATE_EXTERNAL_ACCOUNT',
        'Your organization already has an external account with this country, routing number and account number',
      ),
    }),
  );

export const ApiGetExternalAccount = () =>
  applyDecorators(
    ApiOkResponse({ type: ExternalBankAccountResponse }),
    ApiNotFound('externalBankAccount'),
    ID_PARAM,
  );

export const ApiListExternalAccounts = () =>
  applyDecorators(ApiOkResponse({ type: ExternalBankAccountListResponse }));

export const ApiUpdateExternalAccount = () =>
  applyDecorators(
    ApiOkResponse({
      type: ExternalBankAccountResponse,
      description: 'External bank account updated successfully',
    }),
    ApiBadRequestResponse({
      type: ErrorEnvelope,
      description: 'Validation failed',
      examples: {
        bankDetails: fieldError(
          'Bank details never change',
          'routingNumber',
          'field_not_allowed',
          'bank details never change: create a new external account (POST /v0/externalAccounts) and delete this one',
        ),
        verified: fieldError(
          'A client never verifies its own account',
          'status',
          'status_set_by_verification',
          '"verified" is set by the verification process, never by a client: send "new" to submit the account for verification again',
        ),
      },
    }),
    ApiNotFound('externalBankAccount'),
    ID_PARAM,
  );

export const ApiDeleteExternalAccount = () =>
  applyDecorators(
    ApiOkResponse({ type: DeletedExternalBankAccountResponse }),
    ApiNotFound('externalBankAccount'),
    ID_PARAM,
  );
