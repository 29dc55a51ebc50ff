import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';

/** The Fastify route config that @SecretInAnswer() sets (request.routeOptions.config). */
interface SecretInAnswerConfig {
  secretInAnswer?: string;
}

/**
 * A route whose answer shows a secret once, in the top-level field `field` beside the resource
 * (a webhook endpoint's signing secret, on create and rotateSecret). The field is no part of the
 * resource, so:
 * - the answer's ETag is the resource's, the field left out: the tag GET gives, so If-Match with
 *   it works (conditional-requests.ts);
 * - an Idempotency-Key's stored answer, replayed for 24 hours, is encrypted at rest, as the
 *   secret itself is (idempotency.service.ts).
 * Declared on the route as Fastify route config, so that the hooks read it for a replayed answer
 * too, whose handler never runs.
 */
export function SecretInAnswer(field: string): MethodDecorator {
  const config: SecretInAnswerConfig = { secretInAnswer: field };
  return RouteConfig(config);
}

/** The field in which the route reached shows a secret once (see SecretInAnswer), if any. */
export function secretFieldOf(request: FastifyRequest): string | undefined {
  const config = request.routeOptions?.config as SecretInAnswerConfig | undefined;
  return config?.secretInAnswer;
}
