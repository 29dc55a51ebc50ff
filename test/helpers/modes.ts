import { ApiKeysService } from '../../src/auth/api-keys.service';
import { TestApp, TestTenant } from './test-app';

/** One organization with a live key and a test key: the two modes of API.md section 2. */
export interface TwoModeTenant {
  organizationId: string;
  live: TestTenant;
  test: TestTenant;
}

export async function createTwoModeTenant(t: TestApp, name = 'Two modes'): Promise<TwoModeTenant> {
  const live = await t.createTenant(name);
  const key = await t.app.get(ApiKeysService).createApiKey(live.organizationId, { mode: 'test' });
  const test: TestTenant = {
    organizationId: live.organizationId,
    apiKey: key.apiKey,
    apiKeyId: key.id,
    auth: { Authorization: `Bearer ${key.apiKey}` },
  };
  return { organizationId: live.organizationId, live, test };
}
