import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../src/app.setup';
import { ExternalBankAccount } from '../../src/external-accounts/entities/external-bank-account.entity';
import { SandboxVerifier } from '../../src/external-accounts/verification/sandbox.verifier';
import { createTwoModeTenant } from '../helpers/modes';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { sandboxAccount } from '../helpers/verification';
import { eventually } from '../helpers/webhook-receiver';

/**
 * Two complete instances of the service on one database, both running the verification worker:
 * each account is claimed by one of them (FOR UPDATE SKIP LOCKED on PostgreSQL; on SQLite the
 * claims of the two connections are serialized by the database's write lock), asked once, and
 * decided once, with one event.
 */
describe(`two verifying instances on one ${TEST_DIALECT} database`, () => {
  let t: TestApp;
  let second: NestFastifyApplication;

  beforeAll(async () => {
    t = await startTestApp({
      SANDBOX_VERIFICATION_DELAY_MS: '0',
      VERIFICATION_POLL_INTERVAL_MS: '10',
      WEBHOOK_DISPATCHER: 'off',
    });
    second = await createApp(t.config);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await second.close();
    await t.close();
  });

  it('decides every account once, whichever instance claims it', async () => {
    const tenant = await createTwoModeTenant(t, 'Shared');
    // Each ask takes a moment, so that claims overlap and both instances poll meanwhile.
    const asked: { instance: string; id: string }[] = [];
    for (const [instance, app] of [
      ['first', t.app],
      ['second', second],
    ] as const) {
      const sandbox = app.get(SandboxVerifier);
      const real = sandbox.decide.bind(sandbox);
      jest.spyOn(sandbox, 'decide').mockImplementation(async (account: ExternalBankAccount) => {
        asked.push({ instance, id: account.id });
        await new Promise((resolve) => setTimeout(resolve, 20));
        return real(account);
      });
    }
    const endings = ['6789', '1116', '1113', '2227'];
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await t
        .http()
        .post('/v0/externalAccounts')
        .set(tenant.test.auth)
        .send(sandboxAccount(endings[i % endings.length]));
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const decisions = await eventually(
      (): Promise<{ type: string; data: string | object }[]> =>
        t.dataSource.query(
          t.db.sql(`SELECT type, data FROM events WHERE organization_id = ? AND type IN (?, ?)`),
          [tenant.organizationId, 'externalBankAccount.verified', 'externalBankAccount.errored'],
        ),
      (rows) => rows.length >= 40,
      60_000,
    );
    // Time for a second decision to land, had one been made.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const [{ n }] = await t.dataSource.query(
      t.db.sql(`SELECT COUNT(*) AS n FROM events WHERE organization_id = ? AND type IN (?, ?)`),
      [tenant.organizationId, 'externalBankAccount.verified', 'externalBankAccount.errored'],
    );
    expect(Number(n)).toBe(40);
    const decided = decisions.map((row) => {
      const data = (typeof row.data === 'string' ? JSON.parse(row.data) : row.data) as {
        object: { id: string };
      };
      return data.object.id;
    });
    expect(decided.sort()).toEqual([...ids].sort());
    // Asked once each: no account was claimed by both instances.
    expect(asked.map((a) => a.id).sort()).toEqual([...ids].sort());
    const pending = await t.dataSource.query(
      t.db.sql(
        `SELECT id FROM external_bank_accounts WHERE organization_id = ? AND (status = 'pending' OR verification_due_at IS NOT NULL)`,
      ),
      [tenant.organizationId],
    );
    expect(pending).toEqual([]);
  });
});
