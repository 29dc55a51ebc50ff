import { applyDecorators } from '@nestjs/common';
import { IsString, Matches } from 'class-validator';
import { ForbiddenError } from './errors';

/** The shape of an organization id; `merchantId` is the API's name for the owning organization. */
export const ORGANIZATION_ID_PATTERN = /^org_[0-9A-Za-z]{16,40}$/;

/** A `merchantId` in a body or query: a string shaped like an organization id. */
export function IsMerchantId(): PropertyDecorator {
  return applyDecorators(
    IsString(),
    Matches(ORGANIZATION_ID_PATTERN, {
      context: { code: 'invalid_id' },
      message: 'must be an organization id such as "org_01JD3Y2Q6J8C4N1V9W5X7Z0ABC"',
    }),
  );
}

/**
 * `merchantId` defaults to the caller's organization (API.md section 2). Any other organization
 * id answers 403, whether that organization exists or not, so a key learns nothing about others.
 */
export function assertOwnMerchant(organizationId: string, merchantId: string | undefined): void {
  if (merchantId === undefined || merchantId === organizationId) return;
  throw new ForbiddenError(
    `merchantId '${merchantId}' is not your organization: omit merchantId or send '${organizationId}'`,
  );
}
