import { ForbiddenError } from './errors';
import { IsIdShape } from './validation/decorators';

/** A `merchantId` in a body or query: the API's name for the owning organization. */
export const IsMerchantId = (): PropertyDecorator => IsIdShape('org', 'an organization');

/**
 * `merchantId` (or an external account's `organizationId`, named by `field`) defaults to the
 * caller's organization (docs/api.md §2). Any other organization id answers 403, whether that
 * organization exists or not, so a key learns nothing about others.
 */
export function assertOwnMerchant(
  organizationId: string,
  merchantId: string | undefined,
  field: 'merchantId' | 'organizationId' = 'merchantId',
): void {
  if (merchantId === undefined || merchantId === organizationId) return;
  throw new ForbiddenError(
    `${field} '${merchantId}' is not your organization: omit ${field} or send '${organizationId}'`,
  );
}
