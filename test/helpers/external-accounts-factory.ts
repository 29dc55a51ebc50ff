import { randomInt } from 'node:crypto';
import { composeIBAN } from 'ibantools';
import { VerificationFailureReason } from '../../src/external-accounts/account-status';
import { VerificationService } from '../../src/external-accounts/verification/verification.service';
import { TestApp, TestTenant } from './test-app';

let counter = 0;

/** A number of `length` digits that no other call in this process returns. */
export function uniqueDigits(length: number): string {
  counter += 1;
  const tail = String(counter).padStart(6, '0');
  let head = '';
  while (head.length < length - tail.length) head += String(randomInt(10));
  return (head + tail).slice(-length);
}

/** A valid German IBAN with a fresh account part. */
export function uniqueGermanIban(): string {
  const iban = composeIBAN({ countryCode: 'DE', bban: `37040044${uniqueDigits(10)}` });
  if (!iban) throw new Error('could not compose an IBAN');
  return iban;
}

/** A valid create body for a US account with a fresh account number. */
export function usAccount(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    countryCode: 'US',
    bankName: 'STRIPE TEST BANK',
    currency: 'USD',
    accountNumber: uniqueDigits(12),
    routingNumber: '110000000',
    accountHolderName: 'Jenny Rosen',
    accountHolderType: 'individual',
    ...overrides,
  };
}

/** Creates an account over HTTP and returns its response body (fails the test on a non-201). */
export async function createAccount(
  t: TestApp,
  tenant: TestTenant,
  overrides: Record<string, unknown> = {},
): Promise<any> {
  const res = await t
    .http()
    .post('/v0/externalAccounts')
    .set(tenant.auth)
    .send(usAccount(overrides));
  expect({ status: res.status, body: res.body }).toMatchObject({ status: 201 });
  return res.body;
}

/**
 * Decides a pending live account as an operator does (the command line's own service, in this
 * process; test/external-accounts/verification-operator.e2e-spec.ts drives the real command
 * line). Returns the account after the decision, as GET shows it.
 */
export async function decide(
  t: TestApp,
  id: string,
  status: 'verified' | 'errored',
  reason: VerificationFailureReason = 'rejected',
): Promise<any> {
  const verification = t.app.get(VerificationService);
  // The operator decides on what `pending` showed: the account's current ETag.
  const shown = (await verification.awaitingOperator(undefined, 1000)).data.find(
    (a) => a.id === id,
  );
  const after = await verification.decideAsOperator(
    id,
    shown?.etag ?? '"not waiting"',
    status === 'verified' ? { status } : { status, reason },
  );
  return JSON.parse(JSON.stringify(after));
}

/** Every key of an external bank account response, in order. */
export const ACCOUNT_KEYS = [
  'id',
  'object',
  'livemode',
  'organizationId',
  'countryCode',
  'bankName',
  'currency',
  'accountNumber',
  'routingNumber',
  'accountHolderName',
  'accountHolderType',
  'last4',
  'status',
  'statusReason',
  'metadata',
  'createdAt',
  'updatedAt',
];
