import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { PinoLogger } from 'nestjs-pino';
import { Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Database } from '../database/database';

/** Seconds: from a fast read (5 ms) to the 30 s a request may take to arrive. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** The label of a request no route matched (404s, 405s): never the raw path, which is unbounded. */
export const UNMATCHED_ROUTE = '(unmatched)';

/**
 * The service's metrics for Prometheus (docs/metrics.md), in a registry of its own (two apps in
 * one process, as in the tests, never mix). Every module counts here; MetricsServer serves them
 * on METRICS_PORT, and nothing is measured per request when METRICS_PORT is unset.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  /** True when METRICS_PORT is set: only then are requests and database time measured. */
  readonly enabled: boolean;

  readonly requests = new Counter({
    name: 'billing_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly requestDuration = new Histogram({
    name: 'billing_http_request_duration_seconds',
    help: 'Time from the request arriving to its response sent, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly databaseDuration = new Histogram({
    name: 'billing_database_duration_seconds',
    help: 'Time of each unit of work (a transaction or a read), waiting for the database included',
    labelNames: ['kind'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly idempotentReplays = new Counter({
    name: 'billing_idempotent_replays_total',
    help: 'Responses replayed for a retried Idempotency-Key, by route pattern',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'billing_rate_limited_requests_total',
    help: 'Requests refused with 429 by the rate limit, by route pattern',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });
  readonly eventsRecorded = new Counter({
    name: 'billing_events_recorded_total',
    help: 'Events written to the outbox in a write transaction, by type',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });
  readonly webhookAttempts = new Counter({
    name: 'billing_webhook_attempts_total',
    help: 'Webhook delivery attempts, by outcome (succeeded, http_error, network_error)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  private oldestUndelivered?: () => Promise<Date | null>;

  constructor(@Inject(APP_CONFIG) config: AppConfig, db: Database) {
    this.enabled = config.metricsPort !== undefined;
    if (!this.enabled) return;
    collectDefaultMetrics({ register: this.registry, prefix: 'billing_' });
    db.timeUnitsOfWork((kind, seconds) => this.databaseDuration.observe({ kind }, seconds));
    // Computed when Prometheus scrapes, from the database: nothing to keep up to date meanwhile.
    const oldest = () => this.oldestUndelivered?.();
    new Gauge({
      name: 'billing_oldest_undelivered_event_age_seconds',
      help: 'Age of the oldest event with a webhook delivery still to make (0 when none)',
      registers: [this.registry],
      async collect() {
        try {
          const at = await oldest();
          if (at === undefined) return;
          this.set(at ? Math.max(0, (Date.now() - at.getTime()) / 1000) : 0);
        } catch {
          // The database does not answer: no new value this time (readiness reports it).
        }
      },
    });
  }

  /** Where the undelivered-event gauge reads the creation time of the oldest one (webhooks). */
  measureOldestUndelivered(oldest: () => Promise<Date | null>): void {
    this.oldestUndelivered = oldest;
  }

  /**
   * One onResponse hook: the request's route pattern (Fastify's, `/v0/plans/:id`, never the raw
   * path), status and latency, a replayed idempotent answer, a 429 of the rate limit. Registered
   * only when METRICS_PORT is set.
   */
  register(fastify: FastifyInstance): void {
    if (!this.enabled) return;
    fastify.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
      const labels = { method: request.method, route, status: reply.statusCode };
      this.requests.inc(labels);
      this.requestDuration.observe(labels, reply.elapsedTime / 1000);
      if (reply.statusCode === 429) this.rateLimited.inc({ route });
      if (reply.getHeader('idempotent-replayed') === 'true') this.idempotentReplays.inc({ route });
      done();
    });
  }
}

/**
 * The metrics' own HTTP server on METRICS_PORT (never the API's port, so /metrics is not
 * reachable where the API is exposed): GET /metrics in Prometheus' text format, 404 for the rest.
 * Starts with the application and stops with it.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnModuleDestroy {
  private server?: Server;

  constructor(
    private readonly metrics: Metrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly logger: PinoLogger,
  ) {
    logger.setContext('Metrics');
  }

  async onApplicationBootstrap(): Promise<void> {
    const port = this.config.metricsPort;
    if (port === undefined) return;
    const server = createServer((request, response) => {
      const path = (request.url ?? '').split('?')[0];
      if (request.method !== 'GET' || path !== '/metrics') {
        response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('Not found: metrics are at GET /metrics\n');
        return;
      }
      this.metrics.registry.metrics().then(
        (text) => {
          response.writeHead(200, { 'content-type': this.metrics.registry.contentType });
          response.end(text);
        },
        (err: unknown) => {
          this.logger.error({ err }, 'metrics could not be collected');
          response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
          response.end('metrics could not be collected\n');
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.logger.info(`Metrics on ${this.config.host}:${this.port()}/metrics`);
  }

  /** The port the metrics server listens on (METRICS_PORT, or the one 0 picked). */
  port(): number | undefined {
    return (this.server?.address() as AddressInfo | null)?.port;
  }

  async onModuleDestroy(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
