import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserContext, Locator, Page, chromium } from 'playwright-core';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, startTestApp } from '../helpers/test-app';

/**
 * Debian's Chromium, never a browser Playwright downloads. Missing, the suite fails: a reader's
 * path through Swagger UI is part of the product (docs/api.md §7), not an optional extra.
 * `.ci/run` installs it; elsewhere `apt-get install -y chromium`.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The operation block of Swagger UI for an operation id (`operations-<tag>-<operationId>`). */
const operation = (page: Page, tag: string, operationId: string): Locator =>
  page.locator(`#operations-${tag.replace(/ /g, '_')}-${operationId}`);

/** Opens an operation, presses "Try it out", optionally edits the body, and executes it. */
async function tryItOut(
  block: Locator,
  editBody?: (body: string) => string,
): Promise<{ status: string; body: string }> {
  await block.locator('.opblock-summary').first().click();
  await block.getByRole('button', { name: 'Try it out' }).click();
  const textarea = block.locator('textarea.body-param__text');
  if (editBody) {
    await textarea.fill(editBody(await textarea.inputValue()));
  }
  await block.getByRole('button', { name: 'Execute' }).click();
  const live = block.locator('.live-responses-table tbody .response').first();
  await live.waitFor({ timeout: 30_000 });
  const status = (await live.locator('.response-col_status').innerText()).trim();
  const body = await live.locator('.response-col_description pre').first().innerText();
  return { status, body };
}

describe(`Swagger UI in a real browser (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;
  let base: string;
  let profile: string;
  let browser: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium is missing at ${CHROMIUM}: install Debian's (apt-get install -y chromium), ` +
          'as .ci/run does. This suite never downloads a browser and never skips.',
      );
    }
    t = await startTestApp();
    tenant = await t.createTenant();
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    profile = mkdtempSync(join(tmpdir(), 'swagger-ui-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      timeout: 60_000,
    });
    page = browser.pages()[0] ?? (await browser.newPage());
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await t?.close();
  });

  it('authorizes with an API key, creates a product and a plan with Try it out, and keeps the key across a reload', async () => {
    await page.goto(`${base}/docs`);
    await page.locator('.swagger-ui .info .title').waitFor({ timeout: 30_000 });

    // Authorize: the bearer scheme's dialog takes the API key.
    await page.locator('.auth-wrapper button.authorize').click();
    const dialog = page.locator('.dialog-ux .modal-ux');
    await dialog.locator('input').first().fill(tenant.apiKey);
    await dialog.locator('.auth-btn-wrapper button.authorize').click();
    await dialog.locator('.auth-btn-wrapper button.btn-done').click();

    // The product create example runs as it is (no merchantId of another organization).
    const product = await tryItOut(operation(page, 'Products', 'ProductsController_create'));
    expect(product).toMatchObject({ status: '201' });
    const productId = (JSON.parse(product.body) as { id: string }).id;
    expect(productId).toMatch(/^prod_/);

    // The plan create example names a product that must be yours: put the new one in its place.
    const plan = await tryItOut(operation(page, 'Plans', 'PlansController_create'), (body) =>
      body.replace(/prod_[0-9A-Za-z]{16,40}/, productId),
    );
    expect(plan).toMatchObject({ status: '201' });
    expect(JSON.parse(plan.body)).toMatchObject({ object: 'plan', productId });

    // Both were created with the key typed into the dialog, as the API sees it.
    const listed = await t.http().get('/v0/plans').set(tenant.auth).expect(200);
    expect(listed.body.data.map((p: { productId: string }) => p.productId)).toEqual([productId]);

    // persistAuthorization: after a reload the key is still set, and a request still runs.
    await page.reload();
    await page.locator('.swagger-ui .info .title').waitFor({ timeout: 30_000 });
    await page.locator('.auth-wrapper button.authorize').click();
    // Authorized: the dialog offers to log out, and shows no field to type a key into.
    await dialog.locator('.auth-btn-wrapper button', { hasText: 'Logout' }).waitFor();
    expect(await dialog.locator('input').count()).toBe(0);
    await dialog.locator('.auth-btn-wrapper button.btn-done').click();
    const again = await tryItOut(operation(page, 'Products', 'ProductsController_list'));
    expect(again.status).toBe('200');
    expect((JSON.parse(again.body) as { data: { id: string }[] }).data[0].id).toBe(productId);
  }, 120_000);
});
