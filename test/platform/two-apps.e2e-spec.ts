import { TEST_DIALECT } from '../helpers/test-database';
import { startTestApp } from '../helpers/test-app';

describe(`several application instances in one process (${TEST_DIALECT})`, () => {
  it('checks each API key against its own instance, before and after another instance closes', async () => {
    const first = await startTestApp();
    try {
      const a = await first.createTenant();
      const second = await startTestApp();
      const b = await second.createTenant();
      await first.http().get('/v0/products').set(a.auth).expect(200);
      await second.http().get('/v0/products').set(b.auth).expect(200);
      // Each key exists only in its own instance's database.
      await first.http().get('/v0/products').set(b.auth).expect(401);
      await second.close();
      await first.http().get('/v0/products').set(a.auth).expect(200);
    } finally {
      await first.close();
    }
  });
});
