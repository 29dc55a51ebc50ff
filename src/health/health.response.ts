/** The bodies of the public routes (a file the Swagger plugin reads: `*.response.ts`). */
export class HealthResponse {
  /** Always `ok` when the response is 200. */
  status: 'ok';
}

export class RootResponse {
  /** What this is. */
  message: string;
  /** Swagger UI. */
  docs: '/docs';
  /** The OpenAPI document. */
  openapi: '/docs-json';
  /** Liveness. */
  health: '/healthz';
}

export class ReadinessResponse {
  /** Always `ok` when the response is 200. */
  status: 'ok';
  /** `up` when the database answered. */
  database: 'up';
}
