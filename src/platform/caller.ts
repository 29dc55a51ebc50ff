import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/api-keys.service';
import type { CommitHook } from '../database/commit-hook';
import { IDEMPOTENT_METHODS, idempotencyKeyOf as requestKey } from './idempotency/idempotency-key';
import type { ClaimedRequest } from './idempotency/idempotency.service';
import type { Tenant } from '../common/tenant';

export type { Tenant } from '../common/tenant';

/** Who made a change (docs/api.md §5.6). */
export type Actor =
  { type: 'apiKey'; id: string } | { type: 'operator'; id: null } | { type: 'system'; id: null };

export const OPERATOR: Actor = { type: 'operator', id: null };
export const SYSTEM: Actor = { type: 'system', id: null };

/** The request that made a change: its X-Request-Id and Idempotency-Key. */
export interface RequestRef {
  id: string;
  idempotencyKey: string | null;
}

/** Everything an event needs to know about who wrote, handed to services as a parameter. */
export interface Caller {
  principal: Tenant;
  actor: Actor;
  /** Null for the command line and the service itself. */
  request: RequestRef | null;
  /**
   * The commit hook of the request's Idempotency-Key (platform/idempotency): the service passes
   * it to its write transaction, which stores the answer in the same commit.
   */
  commit?: CommitHook;
}

/** The caller of an authenticated route, as a handler parameter: `@CurrentCaller() caller: Caller`. */
export const CurrentCaller = createParamDecorator((_: unknown, ctx: ExecutionContext): Caller => {
  const request = ctx
    .switchToHttp()
    .getRequest<FastifyRequest & ClaimedRequest & { user?: Principal }>();
  const user = request.user;
  if (!user) throw new Error('CurrentCaller used on a route without authentication');
  return {
    principal: { organizationId: user.organizationId, livemode: user.livemode },
    actor: { type: 'apiKey', id: user.apiKeyId },
    request: { id: String(request.id), idempotencyKey: idempotencyKeyOf(request) },
    commit: request.idempotency?.armed ? request.idempotency : undefined,
  };
});

/**
 * The Idempotency-Key a write honoured: @Idempotent() routes have refused a malformed one with a
 * 400 already. Other requests (reads) ignore the header, as they do everywhere else.
 */
function idempotencyKeyOf(request: FastifyRequest): string | null {
  if (!IDEMPOTENT_METHODS.has(request.method)) return null;
  try {
    return requestKey(request) ?? null;
  } catch {
    return null;
  }
}
