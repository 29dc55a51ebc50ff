import { IncomingMessage } from 'node:http';
import { ID_PREFIXES, newId } from '../common/ids';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Fastify's genReqId: the client's X-Request-Id when it is 1-128 characters of [A-Za-z0-9._-],
 * else a new `req_` id. It is also set on the raw request so pino-http logs the same id.
 */
export function requestIdFor(req: IncomingMessage): string {
  const header = req.headers['x-request-id'];
  const id =
    typeof header === 'string' && CLIENT_REQUEST_ID.test(header)
      ? header
      : newId(ID_PREFIXES.request);
  (req as IncomingMessage & { id?: string }).id = id;
  return id;
}
