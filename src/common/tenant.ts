/**
 * Whose data a request reads and writes: one organization, in one mode (docs/api.md §2). Every
 * query of a resource is scoped by both, so a resource of another organization or of the other
 * mode is not there for the caller.
 */
export interface Tenant {
  organizationId: string;
  /** True for live mode (an sk_live_ key), false for test mode (an sk_test_ key). */
  livemode: boolean;
}

/** The columns that scope a row to `tenant`, for a TypeORM `where` (a new object each call). */
export function ownedBy(tenant: Tenant): { organizationId: string; livemode: boolean } {
  return { organizationId: tenant.organizationId, livemode: tenant.livemode };
}
