import { ArgumentsHost, Catch, ExceptionFilter, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PinoLogger } from 'nestjs-pino';
import { ApiError } from '../common/errors';
import { toErrorResponse } from './error-envelope';
import { clientHungUp } from './connections';
import { loggablePath } from './logging';
import { RouteTable } from './route-table';

/**
 * The one exception filter (APP_FILTER): whatever was thrown, the client gets the envelope of
 * docs/api.md §3 with the request id; unexpected errors are logged with their stack, and
 * nothing about them (SQL, stack, secrets) reaches the client. A client that hung up mid-request
 * is one info line, not an error (docs/api.md §6).
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(
    private readonly logger: PinoLogger,
    private readonly routes: RouteTable,
  ) {
    logger.setContext('AllExceptionsFilter');
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const request = ctx.getRequest<FastifyRequest>();
    const reply = ctx.getResponse<FastifyReply>();
    if (clientHungUp(request)) {
      // Reading the body failed because the client went away: nobody to answer, no fault here.
      this.logger.info(
        { reqId: request.id, req: { method: request.method, route: request.routeOptions?.url } },
        'client closed the connection before the request arrived in full',
      );
      return;
    }
    const error = this.translate(exception, request);
    const response = toErrorResponse(error, String(request.id));
    if (response.unexpected) {
      this.logger.error({ err: error, reqId: request.id }, 'request failed unexpectedly');
    }
    if (reply.sent) return;
    void reply
      .status(response.status)
      .headers(response.headers)
      .header('content-type', 'application/json; charset=utf-8')
      .send(response.body);
  }

  /**
   * A route that exists with other methods answers 405 with Allow, not 404. Neither message
   * repeats what the client put in the path (an account number, a key: docs/api.md §5.5, §6):
   * a 405 names the route's pattern (`/v0/plans/:id`), a 404 the path with every segment that is
   * neither a route's word nor a well-formed id shown as `[redacted]` (loggablePath).
   */
  private translate(exception: unknown, request: FastifyRequest): unknown {
    if (!(exception instanceof NotFoundException) || request.routeOptions?.url) return exception;
    const allowed = this.routes.methodsFor(request.url);
    const pattern = this.routes.patternOf(request.url);
    if (allowed.length > 0 && pattern !== undefined) {
      return new ApiError('method_not_allowed', `${request.method} is not allowed on ${pattern}`, {
        headers: { Allow: allowed.join(', ') },
      });
    }
    const path = loggablePath(request.url, this.routes.literals);
    return new ApiError('not_found', `No route ${request.method} ${path}`, {
      code: 'ROUTE_NOT_FOUND',
    });
  }
}
