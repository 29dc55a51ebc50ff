import { newId } from '../../src/common/ids';
import { DraftInvoice, InvoicesService } from '../../src/invoices/invoices.service';
import { TestApp, TestTenant } from './test-app';

/**
 * A draft invoice saved as the billing run saves one (InvoicesService.saveDraft), for suites
 * about reading, moving and printing invoices without a subscription's whole life before them.
 */
export async function createDraftInvoice(
  t: TestApp,
  tenant: TestTenant,
  overrides: Partial<DraftInvoice> & { livemode?: boolean } = {},
): Promise<{ id: string; subscriptionId: string; customerId: string }> {
  const { livemode = true, ...rest } = overrides;
  const periodStart = new Date('2026-01-01T00:00:00.000Z');
  const periodEnd = new Date('2026-02-01T00:00:00.000Z');
  const draft: DraftInvoice = {
    tenant: { organizationId: tenant.organizationId, livemode },
    customerId: newId('cus'),
    subscriptionId: newId('sub'),
    planId: newId('plan'),
    currency: 'USD',
    periodStart,
    periodEnd,
    tax: { behavior: 'exclusive', rate: '20' },
    customer: {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      address: {
        line1: '12 Analytical Row',
        line2: null,
        city: 'London',
        state: null,
        postalCode: 'N1 9GU',
        country: 'GB',
      },
    },
    testClockId: null,
    graceEndsAt: new Date('2099-01-01T00:00:00.000Z'),
    lines: [
      {
        type: 'fixedFee',
        description: 'Pro plan',
        priceId: null,
        billableMetricId: null,
        model: null,
        priceProperties: null,
        quantity: null,
        amount: '10.00',
        periodStart,
        periodEnd,
      },
      {
        type: 'usage',
        description: 'API calls',
        priceId: newId('price'),
        billableMetricId: newId('bm'),
        model: 'standard',
        priceProperties: { unitPrice: '0.0015' },
        quantity: '1234',
        amount: '1.85',
        periodStart,
        periodEnd,
      },
    ],
    ...rest,
  };
  const invoice = await t.db.transaction((m) => t.app.get(InvoicesService).saveDraft(m, draft));
  return { id: invoice.id, subscriptionId: draft.subscriptionId, customerId: draft.customerId };
}
