import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Every JSON response an end-to-end suite receives is checked against the OpenAPI document the
 * service serves at /docs-json, as a strict generated client (or a Prism proxy) would check it:
 * the status must be documented for the operation and the body must match its schema. A
 * mismatch fails the request's test. The supertest client of test-app.ts and the HttpClient of
 * the reliability suites go through here, so a new suite gets the check without asking.
 *
 * OpenAPI 3.0 is not JSON Schema: `nullable: true` admits null only beside a `type` in the same
 * schema object (Ajv's `nullable` keyword does exactly that); beside `allOf` or `$ref` alone it
 * has no effect, so it is removed here and null is refused there, as strict clients refuse it.
 */
export class DocumentCheck {
  private readonly ajv: Ajv;
  private readonly operations: { method: string; pattern: RegExp; operation: any }[] = [];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(document: any) {
    const doc = openApi30ToAjv(structuredClone(document));
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'openapi', components: doc.components ?? {} });
    for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
      const pattern = new RegExp(
        '^' +
          path
            .split(/(\{[^}]+\})/)
            .map((part) => (part.startsWith('{') ? '[^/]+' : escapeRegExp(part)))
            .join('') +
          '$',
      );
      for (const [method, operation] of Object.entries<any>(item)) {
        if (['parameters', 'summary', 'description', 'servers'].includes(method)) continue;
        this.operations.push({ method: method.toUpperCase(), pattern, operation });
      }
    }
    // Literal paths before templated ones (/v0/plans/available before /v0/plans/{id}).
    this.operations.sort((a, b) => templated(a.pattern) - templated(b.pattern));
  }

  /** What is wrong with one response, or undefined when it matches the document. */
  problem(
    method: string,
    url: string,
    status: number,
    contentType: string | undefined,
    text: string | undefined,
  ): string | undefined {
    if (!contentType || !/^application\/json\b/.test(contentType)) return undefined;
    if (!text || method.toUpperCase() === 'HEAD') return undefined;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return `${method.toUpperCase()} ${url} → ${status}: Content-Type says JSON but the body is not`;
    }
    let path: string;
    try {
      path = new URL(url, 'http://localhost').pathname;
    } catch {
      path = url.split('?')[0];
    }
    // The document itself, and the routes test/helpers/faults.module.ts adds for tests only.
    if (path === '/docs-json' || path.startsWith('/v0/test-faults/')) return undefined;
    const where = `${method.toUpperCase()} ${path} → ${status}`;
    const found = this.operations.find(
      (o) => o.method === method.toUpperCase() && o.pattern.test(path),
    );
    let schema: unknown;
    let key: string;
    if (!found) {
      // Unknown routes and methods, and answers made before routing: the error envelope.
      if (status < 400) return `${where}: no operation in /docs-json answers this`;
      schema = { $ref: 'openapi#/components/schemas/ErrorEnvelope' };
      key = 'envelope';
    } else {
      const responses = found.operation.responses ?? {};
      const response =
        responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
      if (!response) {
        return `${where}: status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`;
      }
      const declared = response.content?.['application/json']?.schema;
      if (!declared) return `${where}: a JSON body, but the document declares none`;
      schema = declared;
      key = `${found.method} ${found.pattern.source} ${status}`;
    }
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(rebase(schema));
      this.validators.set(key, validate);
    }
    if (validate(body)) return undefined;
    const errors = (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `  ${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
      .join('\n');
    return `${where}: the body does not match /docs-json\n${errors}\n  body: ${JSON.stringify(body).slice(0, 500)}`;
  }
}

/**
 * Mismatches seen by clients that must not throw where the response arrives (the reliability
 * suites' HttpClient counts failures of its own): test/helpers/document-problems.ts fails the
 * test that received them, after it ends.
 */
export const pendingDocumentProblems: string[] = [];

/** Throws when a response does not match the document (for a test to fail on). */
export function assertMatchesDocument(
  check: DocumentCheck,
  method: string,
  url: string,
  res: { status: number; headers: Record<string, any>; text?: string },
): void {
  const problem = check.problem(method, url, res.status, res.headers['content-type'], res.text);
  if (problem) throw new Error(`Response does not match the OpenAPI document: ${problem}`);
}

function templated(pattern: RegExp): number {
  return pattern.source.includes('[^/]+') ? 1 : 0;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `#/components/…` references, made to point into the schema registered as `openapi`. */
function rebase(schema: unknown): any {
  return JSON.parse(
    JSON.stringify(schema).replace(/"\$ref":"#\/components\//g, '"$ref":"openapi#/components/'),
  );
}

/** OpenAPI 3.0 schema objects → what Ajv reads the same way (see the class comment). */
function openApi30ToAjv(node: any): any {
  if (Array.isArray(node)) {
    node.forEach(openApi30ToAjv);
  } else if (node && typeof node === 'object') {
    if (node.nullable === true && node.type === undefined) delete node.nullable;
    for (const value of Object.values(node)) openApi30ToAjv(value);
  }
  return node;
}
