import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, freePort } from '../helpers/processes';
import { ListeningApp, startListeningApp } from '../helpers/reliability/fixtures';
import { TestTenant } from '../helpers/test-app';
import { TEST_DIALECT } from '../helpers/test-database';

/**
 * docs/webhooks.md starts with the integrator's receiver, docs/examples/receive-webhooks.js: it
 * runs with plain `node`, creates its endpoint, reads the secret from that answer, verifies
 * and prints each delivery, and deletes its endpoint when stopped.
 */
describe(`docs/examples/receive-webhooks.js (${TEST_DIALECT})`, () => {
  let l: ListeningApp;
  let tenant: TestTenant;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    l = await startListeningApp({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '100',
    });
    tenant = await l.t.createTenant();
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await l.t.close();
  });

  it('is shown verbatim at the top of docs/webhooks.md', () => {
    const page = readFileSync(join(ROOT, 'docs/webhooks.md'), 'utf8');
    const file = readFileSync(join(ROOT, 'docs/examples/receive-webhooks.js'), 'utf8');
    expect(page).toContain('```js\n' + file.trimEnd() + '\n```');
    expect(page.indexOf('## Your receiver, first')).toBeLessThan(page.indexOf('## Endpoints'));
  });

  it('receives a verified webhook for a change, and deletes its endpoint on SIGTERM', async () => {
    let output = '';
    child = spawn(process.execPath, [join(ROOT, 'docs/examples/receive-webhooks.js')], {
      env: {
        PATH: process.env.PATH,
        KEY: tenant.apiKey,
        API: l.client.baseUrl,
        RECEIVER_PORT: String(await freePort()),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const waitFor = async (pattern: RegExp) => {
      for (let i = 0; i < 300 && !pattern.test(output); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(output).toMatch(pattern);
    };
    await waitFor(/as webhook endpoint we_/);
    const endpointId = /as webhook endpoint (we_\w+)/.exec(output)![1];
    const product = await l.t
      .http()
      .post('/v0/products')
      .set(tenant.auth)
      .send({ name: 'Webhook example' })
      .expect(201);
    await waitFor(new RegExp(`product\\.created ${product.body.id} \\(signature ok\\)`));
    const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    child = undefined;
    await l.t.http().get(`/v0/webhookEndpoints/${endpointId}`).set(tenant.auth).expect(404);
    expect(output).not.toContain('refused');
  });
});
