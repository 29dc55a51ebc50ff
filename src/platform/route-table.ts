import { Injectable } from '@nestjs/common';

/**
 * The methods registered for each route pattern, collected from Fastify's onRoute hook, so that
 * a known path with the wrong method answers 405 with Allow. A pattern matches a path exactly as
 * Fastify's router does (no trailing slash): `/v0/products/` does not exist, so it is a 404.
 */
@Injectable()
export class RouteTable {
  private readonly routes: { url: string; pattern: RegExp; methods: Set<string> }[] = [];
  /**
   * The literal segments of every route (`v0`, `products`, `healthz`; never a `:param` or `*`):
   * with well-formed ids, what a logged path may show.
   */
  readonly literals = new Set<string>();

  add(url: string, methods: string | string[]): void {
    for (const segment of url.split('/')) {
      if (segment !== '' && !/[:*]/.test(segment)) this.literals.add(segment);
    }
    const source = url
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    const pattern = new RegExp(`^${source}$`);
    let entry = this.routes.find((r) => r.pattern.source === pattern.source);
    if (!entry) {
      entry = { url, pattern, methods: new Set() };
      this.routes.push(entry);
    }
    // HEAD and OPTIONS are never listed, nor named in Allow.
    for (const m of [methods].flat().map((m) => m.toUpperCase())) {
      if (m !== 'HEAD' && m !== 'OPTIONS') entry.methods.add(m);
    }
  }

  /** Every registered route, one entry per method. */
  list(): { method: string; url: string }[] {
    return this.routes.flatMap((r) => [...r.methods].map((method) => ({ method, url: r.url })));
  }

  /**
   * The pattern of the route a request target reaches (`/v0/plans/:id`), whatever its method,
   * or undefined: a path named without the ids or whatever else a client put in them.
   */
  patternOf(target: string): string | undefined {
    const path = routerPath(target);
    return this.routes.find((r) => r.pattern.test(path))?.url;
  }

  /**
   * The methods of the routes that a request target reaches, spelled however it was sent: the
   * target is first read as the router reads it (see routerPath).
   */
  methodsFor(target: string): string[] {
    const path = routerPath(target);
    const methods = new Set<string>();
    for (const r of this.routes) if (r.pattern.test(path)) r.methods.forEach((m) => methods.add(m));
    return [...methods].sort();
  }
}

/**
 * A request target as Fastify's router reads it: without the query, the scheme and authority of
 * an absolute-form target (`http://host/v0/products`), and with each segment percent-decoded
 * (`/v%30/products` is `/v0/products`). A segment whose decoding would hold a `/` or fails stays
 * as sent, so it can only fail to match.
 */
export function routerPath(target: string): string {
  let path = target.split('?')[0];
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]*/.exec(path);
  if (authority) path = path.slice(authority[0].length) || '/';
  return path
    .split('/')
    .map((segment) => {
      if (!segment.includes('%')) return segment;
      try {
        const decoded = decodeURIComponent(segment);
        return decoded.includes('/') ? segment : decoded;
      } catch {
        return segment;
      }
    })
    .join('/');
}
