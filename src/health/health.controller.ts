import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/public.decorator';
import { ServiceUnavailableError } from '../common/errors';
import { ApiErrorResponse } from '../platform/api-docs';
import { Database } from '../database/database';
import { HealthResponse, ReadinessResponse, RootResponse } from './health.response';

@ApiTags('Health')
@Public()
@Controller()
export class HealthController {
  constructor(private readonly db: Database) {}

  /** The root: where the API's documentation is. */
  @Get()
  @ApiOkResponse({ type: RootResponse })
  root(): RootResponse {
    return {
      message:
        'Billing API: resources live under /v0 and need an API key; the documentation is at /docs',
      docs: '/docs',
      openapi: '/docs-json',
      health: '/healthz',
    };
  }

  /** Liveness: the process is up and serving HTTP. */
  @Get('healthz')
  @ApiOkResponse({ type: HealthResponse })
  healthz(): HealthResponse {
    return { status: 'ok' };
  }

  /** Readiness: the database answers; 503 otherwise. */
  @Get('readyz')
  @ApiOkResponse({ type: ReadinessResponse })
  @ApiErrorResponse('service_unavailable: the database does not answer', [
    'The database does not answer',
    new ServiceUnavailableError(),
  ])
  async readyz(): Promise<ReadinessResponse> {
    if (!(await this.db.ping())) throw new ServiceUnavailableError();
    return { status: 'ok', database: 'up' };
  }
}
