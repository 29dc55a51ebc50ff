import { RunningServer, startServer } from './processes';
import { TestDatabase, createTestDatabase } from './test-database';
import { TEST_ENCRYPTION_KEY } from './test-app';
import { WebhookReceiver, startReceiver } from './webhook-receiver';

/** What a suite of the real service in child processes works with (see `childServices`). */
export interface ChildServices {
  /** The receiver of the current test (a new one per test). */
  readonly receiver: WebhookReceiver;
  /** Starts the service on the current test's database, with `extra` over the suite's env. */
  start: (extra?: Record<string, string>) => Promise<RunningServer>;
  /** One JSON request to `server` with the suite's API key. */
  api: (
    server: RunningServer,
    method: string,
    path: string,
    body?: unknown,
  ) => Promise<{ status: number; body: any }>;
}

/**
 * The real service in child processes, killed and restarted by the suite: per test, a fresh
 * database and webhook receiver; `start` runs the service on them (BOOTSTRAP_API_KEY `apiKey`,
 * webhooks to private addresses allowed, quick polls, `env` on top); after each test every
 * process still running is killed with SIGKILL, the receiver closed and the database dropped.
 */
export function childServices(apiKey: string, env: Record<string, string> = {}): ChildServices {
  let database: TestDatabase;
  let receiver: WebhookReceiver;
  const servers: RunningServer[] = [];

  beforeEach(async () => {
    database = await createTestDatabase();
    receiver = await startReceiver();
  });
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      if (s.child.exitCode === null) await s.stop('SIGKILL');
    }
    await receiver.close();
    await database.drop();
  });

  return {
    get receiver() {
      return receiver;
    },
    start: async (extra = {}) => {
      const server = await startServer({
        DATABASE_URL: database.url,
        ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        NODE_ENV: 'test',
        BOOTSTRAP_API_KEY: apiKey,
        LOG_LEVEL: 'warn',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_POLL_INTERVAL_MS: '100',
        ...env,
        ...extra,
      });
      servers.push(server);
      return server;
    },
    api: async (server, method, path, body) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { Authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    },
  };
}
