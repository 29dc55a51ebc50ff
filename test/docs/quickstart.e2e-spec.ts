import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Finished, ROOT, RunningServer, freePort, startServer } from '../helpers/processes';
import { TEST_ENCRYPTION_KEY } from '../helpers/test-app';
import { TEST_DIALECT, TestDatabase, createTestDatabase } from '../helpers/test-database';

const SCRIPT = 'docs/quickstart.sh';
const PAGE = 'docs/quickstart.md';

/** The contents of the ```bash blocks of a Markdown page, in order. */
function bashBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

/** Runs docs/quickstart.sh as a reader would, with only the variables the page tells them to set. */
function runQuickstart(
  env: Record<string, string>,
  timeoutMs = 90_000,
  shell: 'bash' | 'zsh' = 'bash',
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(shell, [SCRIPT], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so that a script that hangs is killed with its webhook receiver.
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe(`the quickstart of docs/quickstart.md (${TEST_DIALECT})`, () => {
  it('shows docs/quickstart.sh verbatim: its bash blocks, in order, are the script', () => {
    const script = readFileSync(join(ROOT, SCRIPT), 'utf8');
    const blocks = bashBlocks(readFileSync(join(ROOT, PAGE), 'utf8'));
    expect(blocks.length).toBeGreaterThan(1);
    expect(blocks.join('\n')).toBe(script);
  });

  describe('run against a service started as the page says, on an empty database', () => {
    let database: TestDatabase;
    let server: RunningServer | undefined;
    let key: string;
    let run: Finished;
    // Where the script saves the invoice's PDF (PDF_DIR; the page's default is the current directory).
    const pdfDir = mkdtempSync(join(tmpdir(), 'quickstart-'));

    beforeAll(async () => {
      database = await createTestDatabase();
      server = await startServer({
        DATABASE_URL: database.url,
        ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        NODE_ENV: 'development',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      });
      key = /sk_test_[0-9A-Za-z]{32}/.exec(server.output())?.[0] ?? '';
      run = await runQuickstart({
        KEY: key,
        API: server.url,
        RECEIVER_PORT: String(await freePort()),
        PDF_DIR: pdfDir,
      });
    }, 180_000);

    afterAll(async () => {
      await server?.stop();
      await database?.drop();
      rmSync(pdfDir, { recursive: true, force: true });
    });

    /** Each line the script printed for `label`, as its values (`label   value value…`). */
    function printedLines(label: string): string[][] {
      const lines = [...run.stdout.matchAll(new RegExp(`^${label} {2,}(.+)$`, 'gm'))];
      if (lines.length === 0) {
        throw new Error(`the script printed no "${label}" line:\n${run.stdout}${run.stderr}`);
      }
      return lines.map((line) => line[1].split(' '));
    }

    const printed = (label: string): string[] => printedLines(label)[0];

    async function get(path: string): Promise<any> {
      const res = await fetch(`${server!.url}${path}`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(200);
      return res.json();
    }

    it('starts from the sk_test_ key that the first start printed', () => {
      expect(key).toMatch(/^sk_test_/);
    });

    it('creates a product, two billable metrics, and a plan that holds a price of each', async () => {
      const [product] = printed('product');
      const metrics = printed('billable metrics');
      const prices = printed('prices');
      const [planId] = printed('plan');
      expect(planId).toMatch(/^plan_[0-9A-Za-z]{16,40}$/);
      const plan = await get(`/v0/plans/${planId}`);
      expect(plan).toMatchObject({
        productId: product,
        billingInterval: 'monthly',
        currency: 'USD',
      });
      expect(plan.prices.map((p: any) => p.id)).toEqual(prices);
      expect(plan.prices.map((p: any) => p.billableMetricId)).toEqual(metrics);
      expect(plan.prices.map((p: any) => p.planId)).toEqual([planId, planId]);
      expect(plan.prices[1].properties).toEqual({ unitPrice: '0.00002' });
    });

    it('receives a webhook on the local receiver, and finds its signature right', async () => {
      const [endpointId] = printed('webhook endpoint');
      const webhooks = printedLines('webhook');
      // Every webhook received is printed with its verdict; each signature must be right.
      expect(webhooks.map((w) => w.slice(2))).not.toContainEqual(['signature', 'WRONG']);
      const [eventId] = webhooks.find((w) => w[1] === 'webhookEndpoint.created') ?? [];
      expect(webhooks).toContainEqual([eventId, 'webhookEndpoint.created', 'signature', 'ok']);
      expect(await get(`/v0/events/${eventId}`)).toMatchObject({
        type: 'webhookEndpoint.created',
        livemode: false,
        data: { object: { id: endpointId } },
      });
      // Every write's event, the plan's last: its creation and the two prices it took.
      expect(webhooks.map((w) => w[1])).toEqual([
        'webhookEndpoint.created',
        'product.created',
        'billableMetric.created',
        'billableMetric.created',
        'price.created',
        'price.created',
        'plan.created',
        'price.updated',
        'price.updated',
      ]);
      // Its receiver stopped with the script, so the endpoint was deleted.
      const endpoint = await fetch(`${server!.url}/v0/webhookEndpoints/${endpointId}`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(endpoint.status).toBe(404);
    });

    // zsh (macOS's shell) too: `status` is read-only there, and it splits and echoes otherwise.
    it('runs again on the same database in zsh, seeing only its own webhooks', async () => {
      const again = await runQuickstart(
        { KEY: key, API: server!.url, RECEIVER_PORT: String(await freePort()), PDF_DIR: pdfDir },
        90_000,
        'zsh',
      );
      expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 0, stderr: '' });
      expect(again.stdout).not.toContain('WRONG');
      expect(again.stdout.match(/^webhook {2,}/gm)).toHaveLength(9);
      // Its own customer's invoice: the same amounts, the next number of the organization.
      expect(again.stdout).toMatch(/^invoice total {5}23\.50 \+ 4\.70 = 28\.20 USD$/m);
      expect(again.stdout).toMatch(/^invoice {11}inv_\S+ INV-000002 issued /m);
      expect(again.stdout).toMatch(/^invoice webhook {3}evt_\S+ invoice\.issued signature ok$/m);
    });

    it('stops before creating anything when its receiver cannot listen, and says why', async () => {
      const busy = createServer().listen(0, '127.0.0.1');
      await once(busy, 'listening');
      try {
        const before = (await get('/v0/products?limit=1')).pagination.total as number;
        const failed = await runQuickstart({
          KEY: key,
          API: server!.url,
          RECEIVER_PORT: String((busy.address() as AddressInfo).port),
        });
        expect(failed.code).not.toBe(0);
        expect(failed.stderr).toContain('the webhook receiver cannot listen');
        expect(failed.stderr).toContain('RECEIVER_PORT');
        expect(failed.stdout).not.toContain('webhook endpoint');
        expect((await get('/v0/products?limit=1')).pagination.total).toBe(before);
      } finally {
        busy.close();
      }
    });

    it('sees the test-mode bank account verified by the sandbox within 10 seconds', async () => {
      const [accountId, status] = printed('bank account');
      expect(status).toBe('verified');
      expect(await get(`/v0/externalAccounts/${accountId}`)).toMatchObject({
        status: 'verified',
        statusReason: null,
        accountNumber: '****6789',
      });
    });

    it('bills a month of a subscription on a test clock: a fixed fee, graduated tokens, 20% tax', async () => {
      const [planId, priceId] = printed('starter plan');
      const [clockId] = printed('test clock');
      const [customerId] = printed('customer');
      const [subscriptionId, periodStart, periodEnd] = printed('subscription');
      expect(await get(`/v0/customers/${customerId}`)).toMatchObject({ testClockId: clockId });
      expect(await get(`/v0/plans/${planId}`)).toMatchObject({
        fixedFee: '10.00',
        tax: { behavior: 'exclusive', rate: '20' },
        prices: [{ id: priceId, model: 'graduated' }],
      });
      expect([periodStart, periodEnd]).toEqual([
        '2027-01-01T00:00:00.000Z',
        '2027-02-01T00:00:00.000Z',
      ]);
      expect(printed('usage accepted')).toEqual(['3']);
      expect(printed('clock advanced')).toEqual(['2027-02-01T02:00:00.000Z']);

      const [invoiceId, number, invoiceStatus] = printed('invoice');
      expect([number, invoiceStatus]).toEqual(['INV-000001', 'issued']);
      const invoice = await get(`/v0/invoices/${invoiceId}`);
      // The page's arithmetic: 10.00 of fee; tokens 15,000 = 1,000 free + 9,000 × 0.001 + 2.00
      // flat + 5,000 × 0.0005 = 13.50; subtotal 23.50; tax 20% = 4.70; total 28.20.
      expect(invoice).toMatchObject({
        subscriptionId,
        customerId,
        number: 'INV-000001',
        status: 'issued',
        periodStart: '2027-01-01T00:00:00.000Z',
        periodEnd: '2027-02-01T00:00:00.000Z',
        subtotal: '23.50',
        tax: { behavior: 'exclusive', rate: '20', amount: '4.70' },
        total: '28.20',
        currency: 'USD',
      });
      expect(invoice.lines).toMatchObject([
        { type: 'fixedFee', quantity: null, amount: '10.00' },
        { type: 'usage', priceId, model: 'graduated', quantity: '15000', amount: '13.50' },
      ]);
      expect(printed('invoice lines')).toEqual(['Starter', '10.00', 'Tokens', '15000', '13.50']);
      expect(printed('invoice total')).toEqual(['23.50', '+', '4.70', '=', '28.20', 'USD']);
    });

    it('saves the invoice PDF as a file', () => {
      const [file] = printed('invoice pdf');
      expect(file).toBe(join(pdfDir, 'INV-000001.pdf'));
      expect(readFileSync(file).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    });

    it('receives the invoice.issued webhook of that invoice, its signature right', async () => {
      const [invoiceId] = printed('invoice');
      const [eventId, type, , verdict] = printed('invoice webhook');
      expect([type, verdict]).toEqual(['invoice.issued', 'ok']);
      expect(await get(`/v0/events/${eventId}`)).toMatchObject({
        type: 'invoice.issued',
        livemode: false,
        data: { object: { id: invoiceId, status: 'issued', total: '28.20' } },
      });
    });

    it('ends with "done" and exit code 0', () => {
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      expect(run.stdout.trimEnd().split('\n').pop()).toBe('done');
    });
  });
});
