/**
 * The baseline: a bare node:http server doing each scenario's database work with the driver
 * directly (bench/baseline/store.ts), so the service is measured against what the database and
 * Node can do on this machine. Started like the service: DATABASE_URL, HOST, PORT.
 */
import { createHash } from 'node:crypto';
import { IncomingMessage, ServerResponse, createServer } from 'node:http';
import { postgresStore } from './postgres-store';
import { sqliteStore } from './sqlite-store';
import { CreatePlanBody, Store } from './store';

const url = process.env.DATABASE_URL ?? '';
const store: Store = url.startsWith('sqlite:')
  ? sqliteStore(url.slice('sqlite:'.length))
  : postgresStore(url);

const PLAN_PATH = /^\/v0\/plans\/([^/?]+)$/;
const ACCOUNT_PATH = /^\/v0\/externalAccounts\/([^/?]+)$/;

function send(res: ServerResponse, status: number, body: unknown, location?: string): void {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (location) headers.location = location;
  res.writeHead(status, headers);
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
    req.on('error', reject);
  });
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const [path, query = ''] = (req.url ?? '/').split('?');
  if (req.method === 'GET' && path === '/healthz') return send(res, 200, { status: 'ok' });

  const header = req.headers.authorization ?? '';
  const token = header.startsWith('Bearer ') ? header.slice(7) : '';
  const tenant = token
    ? await store.authenticate(createHash('sha256').update(token).digest('hex'))
    : null;
  if (!tenant) return send(res, 401, { error: 'unauthorized' });

  let match: RegExpExecArray | null;
  if (req.method === 'GET' && path === '/v0/plans') {
    const params = new URLSearchParams(query);
    const limit = Number(params.get('limit') ?? 10);
    const offset = Number(params.get('offset') ?? 0);
    return send(res, 200, await store.listPlans(tenant, limit, offset));
  }
  if (req.method === 'GET' && (match = PLAN_PATH.exec(path))) {
    const plan = await store.getPlan(tenant, match[1]);
    return plan ? send(res, 200, plan) : send(res, 404, { error: 'not_found' });
  }
  if (req.method === 'POST' && path === '/v0/plans') {
    const body = (await readBody(req)) as CreatePlanBody;
    const plan = await store.createPlan(tenant, body);
    if (typeof plan === 'string')
      return send(res, 400, { error: 'validation_error', message: plan });
    return send(res, 201, plan, `/v0/plans/${(plan as { id: string }).id}`);
  }
  if (req.method === 'PATCH' && (match = ACCOUNT_PATH.exec(path))) {
    const body = (await readBody(req)) as { metadata?: Record<string, string> };
    const account = await store.patchAccountMetadata(tenant, match[1], body.metadata ?? {});
    return account ? send(res, 200, account) : send(res, 404, { error: 'not_found' });
  }
  send(res, 404, { error: 'not_found' });
}

const server = createServer((req, res) => {
  handle(req, res).catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    if (!res.headersSent) send(res, 500, { error: 'internal_error' });
  });
});

server.listen(Number(process.env.PORT ?? 3001), process.env.HOST ?? '127.0.0.1');

process.on('SIGTERM', () => {
  server.close(() => void store.close().then(() => process.exit(0)));
  server.closeAllConnections();
});
