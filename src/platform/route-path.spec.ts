import type { FastifyRequest } from 'fastify';
import { isApiRoute, routePath } from './route-path';

function requestAt(url: string | undefined, params: Record<string, string> = {}): FastifyRequest {
  return { routeOptions: { url }, params } as unknown as FastifyRequest;
}

describe('routePath', () => {
  it('fills the route pattern with its parameters, without a query string', () => {
    expect(routePath(requestAt('/v0/products/:id', { id: 'prod_1' }))).toBe('/v0/products/prod_1');
    expect(routePath(requestAt('/v0/products'))).toBe('/v0/products');
  });

  it('spells a parameter one way: percent-encoded where it must be', () => {
    expect(routePath(requestAt('/v0/products/:id', { id: 'a/b c' }))).toBe(
      '/v0/products/a%2Fb%20c',
    );
  });

  it('is undefined when no route was reached', () => {
    expect(routePath(requestAt(undefined))).toBeUndefined();
  });
});

describe('isApiRoute', () => {
  it.each([
    ['/v0/products', true],
    ['/v0/products/:id', true],
    ['/healthz', false],
    ['/v0x/products', false],
    [undefined, false],
  ])('%s → %s', (url, expected) => {
    expect(isApiRoute(requestAt(url))).toBe(expected);
  });
});
