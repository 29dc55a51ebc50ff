/**
 * The billing run (issue 44, docs/api.md §5.12): the time to invoice N periods ending at the same
 * instant (default 10,000), each of a customer with usage of three prices (standard, graduated,
 * package) and a fixed fee: drafts made through the invoices' port (one transaction per period,
 * as the subscriptions module closes them), then issued (one transaction each, as the poller
 * does). In process, on SQLite (default) or PostgreSQL (TEST_DATABASE=postgres).
 *
 *   npx ts-node --transpile-only bench/invoices.ts [--periods 10000]
 *   TEST_DATABASE=postgres npx ts-node --transpile-only bench/invoices.ts
 */
import { parseArgs } from 'node:util';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { newId } from '../src/common/ids';
import { Customer } from '../src/customers/entities/customer.entity';
import { BillingRun } from '../src/invoices/billing-run';
import { InvoicesService } from '../src/invoices/invoices.service';
import { Invoice } from '../src/invoices/entities/invoice.entity';
import { UsageEvent } from '../src/usage/entities/usage-event.entity';
import { createCatalog } from '../test/helpers/catalog-factory';
import { createPlan, createPrice } from '../test/helpers/plans-factory';
import { TEST_DIALECT } from '../test/helpers/test-database';
import { startTestApp } from '../test/helpers/test-app';

const { values: args } = parseArgs({ options: { periods: { type: 'string', default: '10000' } } });
const N = Number(args.periods);
const CHUNK = 500;

async function main(): Promise<void> {
  // The poller stays out of the way (a long grace): the issue is timed on its own below.
  const t = await startTestApp({ WEBHOOK_DISPATCHER: 'off', INVOICE_GRACE_SECONDS: '31536000' });
  try {
    const tenant = await t.createTenant('Bench');
    const { product, metrics } = await createCatalog(t, tenant.organizationId, 3);
    const prices = [
      await createPrice(t, tenant, metrics[0].id, { properties: { unitPrice: '0.0015' } }),
      await createPrice(t, tenant, metrics[1].id, {
        model: 'graduated',
        properties: {
          tiers: [
            { upTo: '10', unitPrice: '0.1', flatPrice: '1' },
            { upTo: null, unitPrice: '0.05' },
          ],
        },
      }),
      await createPrice(t, tenant, metrics[2].id, {
        model: 'package',
        properties: { packageSize: '5', packagePrice: '2' },
      }),
    ];
    const plan = await createPlan(t, tenant, product.id, {
      fixedFee: '10',
      prices: prices.map((p) => p.id),
    });
    const start = new Date('2026-01-01T00:00:00.000Z');
    const end = new Date('2026-02-01T00:00:00.000Z');
    const now = new Date();
    const customers: string[] = [];
    for (let c = 0; c < N; c += CHUNK) {
      const rows: Customer[] = [];
      const events: QueryDeepPartialEntity<UsageEvent>[] = [];
      for (let i = c; i < Math.min(N, c + CHUNK); i++) {
        const id = newId('cus');
        customers.push(id);
        rows.push({
          id,
          organizationId: tenant.organizationId,
          livemode: true,
          name: `Customer ${i}`,
          email: `c${i}@example.com`,
          externalId: null,
          address: null,
          taxId: null,
          testClockId: null,
          metadata: {},
          subscriptionCount: 1,
          createdAt: now,
          updatedAt: now,
          deletedAt: null,
        });
        for (const [k, metric] of metrics.entries()) {
          for (let e = 0; e < 4; e++) {
            events.push({
              id: newId('uev'),
              organizationId: tenant.organizationId,
              livemode: true,
              idempotencyKey: `${id}-${k}-${e}`,
              customerId: id,
              type: metric.id,
              timestamp: new Date(start.getTime() + (e + 1) * 86_400_000),
              data: {},
              createdAt: now,
            });
          }
        }
      }
      await t.db.transaction(async (m) => {
        await m.insert(Customer, rows);
        for (let i = 0; i < events.length; i += 100) {
          await m.insert(UsageEvent, events.slice(i, i + 100));
        }
      });
    }

    const billing = t.app.get(BillingRun);
    const invoices = t.app.get(InvoicesService);
    const draftStarted = performance.now();
    const ids: string[] = [];
    for (const customerId of customers) {
      const invoice: Invoice = await t.db.transaction((m) =>
        billing.periodClosed(m, {
          tenant: { organizationId: tenant.organizationId, livemode: true },
          subscriptionId: newId('sub'),
          customerId,
          planId: plan.id,
          period: { start, end },
          billedEnd: end,
        }),
      );
      ids.push(invoice.id);
    }
    const draftSeconds = (performance.now() - draftStarted) / 1000;
    const issueStarted = performance.now();
    const tenantRef = { organizationId: tenant.organizationId, livemode: true };
    for (const id of ids) {
      await t.db.transaction((m) => invoices.issueDue(m, tenantRef, id, end));
    }
    const issueSeconds = (performance.now() - issueStarted) / 1000;
    const sample = await invoices.get(tenantRef, ids[ids.length - 1]);
    console.log(
      `| ${TEST_DIALECT} | ${N} | ${draftSeconds.toFixed(1)} s | ${issueSeconds.toFixed(1)} s | ` +
        `${(draftSeconds + issueSeconds).toFixed(1)} s | ${sample.number} ${sample.total} ${sample.currency} |`,
    );
  } finally {
    await t.close();
  }
}

void main();
