import { MetricsServer } from '../../src/platform/metrics';
import { TEST_DIALECT } from '../helpers/test-database';
import { TestApp, TestTenant, startTestApp } from '../helpers/test-app';
import { WebhookReceiver, startReceiver } from '../helpers/webhook-receiver';
import { createEndpoint, emit } from '../webhooks/support';

/** One sample of a scrape: its labels and value. */
interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** Parses Prometheus' text format into the samples of each metric name. */
function parse(text: string): Map<string, Sample[]> {
  const samples = new Map<string, Sample[]>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[name] = value;
    }
    const list = samples.get(match[1]) ?? [];
    list.push({ labels, value: Number(match[3]) });
    samples.set(match[1], list);
  }
  return samples;
}

const RATE_LIMIT = 20;

describe(`metrics for Prometheus on METRICS_PORT (${TEST_DIALECT})`, () => {
  let t: TestApp;
  let tenant: TestTenant;
  let metricsUrl: string;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await startTestApp({
      METRICS_PORT: '0',
      RATE_LIMIT_PER_SECOND: String(RATE_LIMIT),
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '50',
      // One failed attempt, then a retry an hour later: the delivery stays undelivered.
      WEBHOOK_RETRY_SCHEDULE: '3600',
    });
    tenant = await t.createTenant();
    receiver = await startReceiver();
    metricsUrl = `http://127.0.0.1:${t.app.get(MetricsServer).port()}/metrics`;
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  async function scrape(): Promise<Map<string, Sample[]>> {
    const res = await fetch(metricsUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parse(await res.text());
  }

  /** The value of the sample whose labels include `labels` (0 when there is none yet). */
  const valueOf = (scraped: Map<string, Sample[]>, name: string, labels: Record<string, string>) =>
    (scraped.get(name) ?? [])
      .filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      .reduce((sum, s) => sum + s.value, 0);

  it('counts requests by route pattern and status, with latency histograms, never the raw path', async () => {
    const before = await scrape();
    const created = await t.http().post('/v0/products').set(tenant.auth).send({ name: 'A' });
    expect(created.status).toBe(201);
    await t.http().get(`/v0/products/${created.body.id}`).set(tenant.auth).expect(200);
    await t.http().get('/v0/products/prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC').set(tenant.auth).expect(404);
    await t.http().get('/v0/no-such-collection/123').set(tenant.auth).expect(404);
    const after = await scrape();

    const count = (labels: Record<string, string>) =>
      valueOf(after, 'billing_http_requests_total', labels) -
      valueOf(before, 'billing_http_requests_total', labels);
    expect(count({ method: 'POST', route: '/v0/products', status: '201' })).toBe(1);
    expect(count({ method: 'GET', route: '/v0/products/:id', status: '200' })).toBe(1);
    expect(count({ method: 'GET', route: '/v0/products/:id', status: '404' })).toBe(1);
    expect(count({ method: 'GET', route: '(unmatched)', status: '404' })).toBe(1);
    const routes = (after.get('billing_http_requests_total') ?? []).map((s) => s.labels.route);
    expect(routes.filter((r) => /prod_|no-such/.test(r))).toEqual([]);

    const histogram = (suffix: string, labels: Record<string, string>) =>
      valueOf(after, `billing_http_request_duration_seconds_${suffix}`, labels) -
      valueOf(before, `billing_http_request_duration_seconds_${suffix}`, labels);
    const post = { method: 'POST', route: '/v0/products', status: '201' };
    expect(histogram('count', post)).toBe(1);
    expect(histogram('sum', post)).toBeGreaterThan(0);
    expect(histogram('bucket', { ...post, le: '+Inf' })).toBe(1);
  });

  it('measures database time by kind of unit of work', async () => {
    const before = await scrape();
    const created = await t.http().post('/v0/products').set(tenant.auth).send({ name: 'B' });
    await t.http().get(`/v0/products/${created.body.id}`).set(tenant.auth).expect(200);
    const after = await scrape();
    for (const kind of ['transaction', 'read']) {
      const name = 'billing_database_duration_seconds_count';
      expect(valueOf(after, name, { kind }) - valueOf(before, name, { kind })).toBeGreaterThan(0);
    }
    expect(valueOf(after, 'billing_database_duration_seconds_sum', {})).toBeGreaterThan(0);
  });

  it('counts idempotent replays, rate-limited requests and events recorded', async () => {
    const before = await scrape();
    for (let i = 0; i < 2; i++) {
      await t
        .http()
        .post('/v0/products')
        .set(tenant.auth)
        .set('Idempotency-Key', 'metrics-replay')
        .send({ name: 'Replayed' })
        .expect(201);
    }
    const limited = await t.createTenant();
    const burst = await Promise.all(
      Array.from({ length: RATE_LIMIT * 2 }, () => t.http().get('/v0/products').set(limited.auth)),
    );
    const refused = burst.filter((r) => r.status === 429).length;
    expect(refused).toBeGreaterThan(0);
    await createEndpoint(t, await t.createTenant(), receiver.url, ['plan.*']);
    const after = await scrape();

    const delta = (name: string, labels: Record<string, string>) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(delta('billing_idempotent_replays_total', { route: '/v0/products' })).toBe(1);
    expect(delta('billing_rate_limited_requests_total', { route: '/v0/products' })).toBe(refused);
    expect(delta('billing_events_recorded_total', { type: 'webhookEndpoint.created' })).toBe(1);
  });

  it('counts webhook attempts by outcome, and reports the age of the oldest undelivered event', async () => {
    const hooks = await t.createTenant();
    await createEndpoint(t, hooks, receiver.url, ['product.*']);
    receiver.respond((_r, _n, res) => {
      res.writeHead(500).end('down');
    });
    const before = await scrape();
    expect(valueOf(before, 'billing_oldest_undelivered_event_age_seconds', {})).toBe(0);

    await emit(t, hooks, true, 'product.created');
    await receiver.waitFor(1);
    let after = await scrape();
    for (let i = 0; i < 50; i++) {
      if (valueOf(after, 'billing_webhook_attempts_total', { outcome: 'http_error' }) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await scrape();
    }
    expect(valueOf(after, 'billing_webhook_attempts_total', { outcome: 'http_error' })).toBe(1);
    // The failed delivery waits an hour for its retry: its event is still undelivered.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    after = await scrape();
    expect(valueOf(after, 'billing_oldest_undelivered_event_age_seconds', {})).toBeGreaterThan(1);
  });

  it('serves nothing but GET /metrics on its port, and no /metrics on the API port', async () => {
    expect((await fetch(metricsUrl.replace('/metrics', '/'))).status).toBe(404);
    expect((await fetch(metricsUrl, { method: 'POST' })).status).toBe(404);
    const api = await t.http().get('/metrics');
    expect(api.status).toBe(404);
    expect(api.body.error).toBe('not_found');
  });
});

describe(`metrics off when METRICS_PORT is unset (${TEST_DIALECT})`, () => {
  it('starts no metrics server', async () => {
    const t = await startTestApp();
    try {
      expect(t.config.metricsPort).toBeUndefined();
      expect(t.app.get(MetricsServer).port()).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});
