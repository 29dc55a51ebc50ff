import { IncomingMessage } from 'node:http';
import { ID_PREFIXES, newId } from '../common/ids';
import { holdsSecret } from './logging';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Fastify's genReqId: the client's X-Request-Id when it is 1-128 characters of [A-Za-z0-9._-]
 * and holds nothing shaped like a secret (`sk_live_`, `sk_test_` or `whsec_`, in any case,
 * anywhere in it), else a new `req_` id. The id is on every log line, in the X-Request-Id answer
 * and in error bodies, so a key sent as one would be printed everywhere (docs/api.md §6). It is
 * also set on the raw request so pino-http logs the same id.
 */
export function requestIdFor(req: IncomingMessage): string {
  const header = req.headers['x-request-id'];
  const id =
    typeof header === 'string' && CLIENT_REQUEST_ID.test(header) && !holdsSecret(header)
      ? header
      : newId(ID_PREFIXES.request);
  (req as IncomingMessage & { id?: string }).id = id;
  return id;
}
