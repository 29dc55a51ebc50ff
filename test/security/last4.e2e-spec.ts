import { ExternalBankAccount } from '../../src/external-accounts/entities/external-bank-account.entity';
import { createAccount, uniqueDigits } from '../external-accounts/external-account-factory';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, startTestApp } from '../helpers/test-app';

/**
 * Issue 17, finding 7: `last4` never shows more than half of the characters of a short account
 * number (API.md 5.5), in a response or in the stored row; `accountNumber` is "****" + last4.
 */
describe(`last4 of a short account number on ${TEST_DIALECT}`, () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await t.createTenant();
  });
  afterAll(() => t.close());

  it.each([
    [4, 2],
    [5, 2],
    [6, 3],
    [7, 3],
    [8, 4],
    [17, 4],
  ])('shows %i-digit numbers by their last %i digits only', async (length, shown) => {
    const accountNumber = uniqueDigits(length);
    const created = await createAccount(t, tenant, { accountNumber });
    const tail = accountNumber.slice(-shown);
    expect({ last4: created.last4, accountNumber: created.accountNumber }).toEqual({
      last4: tail,
      accountNumber: `****${tail}`,
    });
    const read = await t.http().get(`/v0/externalAccounts/${created.id}`).set(tenant.auth);
    expect(read.body.last4).toBe(tail);
    const row = await t.db.read((m) => m.findOneByOrFail(ExternalBankAccount, { id: created.id }));
    expect(row.last4).toBe(tail);
  });
});
