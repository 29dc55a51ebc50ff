import { Webhook } from 'standardwebhooks';
import { TestApp, TestTenant } from './test-app';
import { uniqueDigits, usAccount } from './external-accounts-factory';
import { Received, eventually } from './webhook-receiver';

/**
 * A create body for a US account whose number ends in `last4`: the sandbox decides test-mode
 * accounts by it (docs/verification.md). The rest of the number is fresh.
 */
export function sandboxAccount(
  last4: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return usAccount({ accountNumber: `${uniqueDigits(8)}${last4}`, ...overrides });
}

/** The events of one account (`externalBankAccount.*`), oldest first, as GET /v0/events shows them. */
export async function accountEvents(t: TestApp, who: TestTenant, id: string): Promise<any[]> {
  const res = await t
    .http()
    .get('/v0/events?type=externalBankAccount.*&limit=100')
    .set(who.auth)
    .expect(200);
  return (res.body.data as any[]).filter((e) => e.data.object.id === id).reverse();
}

/** Waits until the account has left `pending` and returns it as GET shows it. */
export async function decided(t: TestApp, who: TestTenant, id: string): Promise<any> {
  const res = await eventually(
    () => t.http().get(`/v0/externalAccounts/${id}`).set(who.auth),
    (r) => r.status !== 200 || r.body.status !== 'pending',
    30_000,
  );
  expect(res.status).toBe(200);
  return res.body;
}

/** A delivered webhook, its Standard Webhooks signature checked with `secret`: the event. */
export function verifiedWebhook(secret: string, received: Received): any {
  return new Webhook(secret).verify(received.body, {
    'webhook-id': received.headers['webhook-id'] as string,
    'webhook-timestamp': received.headers['webhook-timestamp'] as string,
    'webhook-signature': received.headers['webhook-signature'] as string,
  });
}

/** A promise with its resolver, to hold a verifier until a test lets it go. */
export function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}
