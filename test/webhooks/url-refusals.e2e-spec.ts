import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, expectErrorEnvelope, startTestApp } from '../helpers/test-app';

/**
 * What a refused webhook URL tells the merchant (docs/api.md §5.7, docs/webhooks.md): never
 * what a name resolved to, the cloud providers' internal addresses refused as internal, and,
 * outside production only, the setting that lets a developer use http:// and private addresses.
 */
describe.each(['test', 'production'] as const)(
  `webhook URL refusals, NODE_ENV=%s (${TEST_DIALECT})`,
  (nodeEnv) => {
    let t: TestApp;
    let tenant: TestTenant;

    beforeAll(async () => {
      t = await startTestApp({ NODE_ENV: nodeEnv });
      tenant = await t.createTenant();
    });
    afterAll(() => t.close());

    const refusal = async (url: string): Promise<string> => {
      const res = await t
        .http()
        .post('/v0/webhookEndpoints')
        .set(tenant.auth)
        .send({ url, enabledEvents: ['*'] });
      expectErrorEnvelope(res, 400, 'validation_error', 'INVALID_WEBHOOK_URL');
      return res.body.errors[0].message as string;
    };

    it('says the same of a name that resolves to an internal address and of one that does not resolve', async () => {
      const internal = await refusal('https://localhost/hooks');
      const unknown = await refusal('https://no-such-host.invalid/hooks');
      expect(internal).toBe(unknown);
      expect(internal).not.toMatch(/127\.0\.0\.1|::1|resolves to \d/);
    });

    it.each([
      'https://168.63.129.16:32526/machine?comp=goalstate',
      'https://100.100.100.200/latest/meta-data',
      'https://[fd00:ec2::254]/latest/meta-data',
    ])('refuses the cloud host-service address in %s as internal', async (url) => {
      expect(await refusal(url)).toContain('internal');
    });

    it.each(['http://93.184.216.34/hooks', 'https://10.0.0.1/hooks', 'https://localhost/hooks'])(
      `${nodeEnv === 'production' ? 'never names' : 'names'} WEBHOOK_ALLOW_PRIVATE_NETWORKS for %s`,
      async (url) => {
        const message = await refusal(url);
        if (nodeEnv === 'production') expect(message).not.toContain('WEBHOOK_ALLOW');
        else expect(message).toContain('WEBHOOK_ALLOW_PRIVATE_NETWORKS=true');
      },
    );
  },
);
