import { Agent, IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { DocumentCheck, pendingDocumentProblems } from '../openapi-check';

export interface Reply {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The parsed JSON body, or undefined when the body is empty or not JSON. */
  body: any;
  ms: number;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string is sent as it is (with the Content-Type given). */
  body?: unknown;
  /** Abort the request after this many milliseconds (the client gives up; the server may not). */
  timeoutMs?: number;
}

/**
 * A real HTTP client (node:http, keep-alive) against a listening server, in or out of process.
 * Every response is kept in `journal` so that suites can scan what the service ever sent back.
 */
export class HttpClient {
  readonly journal: string[] = [];
  sent = 0;

  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  /** The served /docs-json, read once: every JSON response is checked against it. */
  private documentCheck?: Promise<DocumentCheck | undefined>;

  constructor(
    readonly baseUrl: string,
    private readonly keepJournal = true,
  ) {}

  /** Closes the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined;
    if (typeof options.body === 'string') {
      body = options.body;
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
        headers['content-type'] = 'application/json';
      }
    }
    // node:http adds no Content-Length to a DELETE body by itself: the body would run into the next request.
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const started = Date.now();
    this.sent += 1;
    const {
      status,
      headers: replyHeaders,
      text,
    } = await send(this.agent, this.baseUrl + path, method, headers, body, options.timeoutMs);
    const reply: Reply = {
      status,
      headers: replyHeaders,
      text,
      body: parseJson(text),
      ms: Date.now() - started,
    };
    if (this.keepJournal) this.journal.push(JSON.stringify(reply.headers) + '\n' + text);
    const check = await (this.documentCheck ??= this.loadDocument());
    const problem = check?.problem(method, path, status, replyHeaders['content-type'], text);
    if (problem) pendingDocumentProblems.push(problem);
    return reply;
  }

  private async loadDocument(): Promise<DocumentCheck | undefined> {
    try {
      const served = await send(
        this.agent,
        `${this.baseUrl}/docs-json`,
        'GET',
        {},
        undefined,
        30_000,
      );
      if (served.status === 200) return new DocumentCheck(JSON.parse(served.text));
    } catch {
      // The service is down (a crash suite): the next request reads the document again.
    }
    this.documentCheck = undefined;
    return undefined;
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, { headers });
  }

  post(path: string, body: unknown, headers?: Record<string, string>) {
    return this.request('POST', path, { body, headers });
  }

  patch(path: string, body: unknown, headers?: Record<string, string>) {
    return this.request('PATCH', path, { body, headers });
  }

  delete(path: string, headers?: Record<string, string>) {
    return this.request('DELETE', path, { headers });
  }
}

/**
 * One exchange over node:http (which, unlike fetch, sends any Latin-1 header value as it is).
 * Rejects when the connection fails or the timeout passes before the response is complete.
 */
function send(
  agent: Agent,
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number | undefined,
): Promise<{ status: number; headers: Record<string, string>; text: string }> {
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const req = httpRequest(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('error', reject);
      res.on('end', () => {
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 0,
          headers: flatHeaders(res.headers),
          text: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    if (timeoutMs) {
      timer = setTimeout(
        () => req.destroy(new Error(`timed out after ${timeoutMs} ms`)),
        timeoutMs,
      );
    }
    req.end(body);
  });
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Streams `bytes` of body with chunked transfer encoding (no Content-Length), as a client that
 * does not announce the size would; resolves with the status the server answered.
 */
export function streamBody(
  url: string,
  method: string,
  headers: Record<string, string>,
  bytes: number,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    // The server may answer and close before the whole body is sent: that is the point.
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    req.write('{"name":"');
    const pump = () => {
      while (sent < bytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end('"}');
    };
    pump();
  });
}
