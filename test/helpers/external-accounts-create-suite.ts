import { usAccount, uniqueDigits, uniqueGermanIban } from './external-accounts-factory';
import { TestApp, TestTenant } from './test-app';

/**
 * The create suites' calls, for a started app (`app` and `own` are read at call time, after
 * beforeAll): POST /v0/externalAccounts as a tenant (the suite's own unless told), and the
 * number of accounts a tenant has.
 */
export function createSuiteCalls(app: () => TestApp, own: () => TestTenant) {
  return {
    post: (body: unknown, who: TestTenant = own()) =>
      app()
        .http()
        .post('/v0/externalAccounts')
        .set(who.auth)
        .send(body as object),
    count: async (who: TestTenant = own()): Promise<number> =>
      (await app().http().get('/v0/externalAccounts').set(who.auth).expect(200)).body.pagination
        .total,
  };
}

/**
 * The body as text without its requestId: a random request id may hold any short run of digits,
 * so a check that an account number is not echoed must not read it.
 */
export function bodyText(res: { body: unknown }): string {
  return JSON.stringify({ ...(res.body as object), requestId: undefined });
}

export const ID_PATTERN = /^eba_[0-9A-Za-z]{16,40}$/;
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function gb(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return usAccount({
    countryCode: 'GB',
    currency: 'GBP',
    accountNumber: uniqueDigits(8),
    routingNumber: '108800',
    bankName: 'NatWest',
    ...overrides,
  });
}

export function de(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return usAccount({
    countryCode: 'DE',
    currency: 'EUR',
    accountNumber: uniqueGermanIban(),
    routingNumber: 'COBADEFFXXX',
    bankName: 'Commerzbank',
    ...overrides,
  });
}

export function ca(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return usAccount({
    countryCode: 'CA',
    currency: 'CAD',
    accountNumber: uniqueDigits(12),
    routingNumber: '11000000',
    bankName: 'RBC',
    ...overrides,
  });
}

export function au(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return usAccount({
    countryCode: 'AU',
    currency: 'AUD',
    accountNumber: uniqueDigits(9),
    routingNumber: '110000',
    bankName: 'Commonwealth Bank',
    ...overrides,
  });
}

export function manyKeys(n: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
}
