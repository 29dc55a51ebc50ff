import { RouteTable, routerPath } from './route-table';

describe('routerPath', () => {
  it('reads a target as the router does', () => {
    expect(routerPath('/v0/products?limit=1')).toBe('/v0/products');
    expect(routerPath('/v%30/products')).toBe('/v0/products');
    expect(routerPath('http://host:3000/v0/products?x=1')).toBe('/v0/products');
    expect(routerPath('HTTPS://host')).toBe('/');
  });

  it('leaves a segment that would gain a slash or does not decode as sent', () => {
    expect(routerPath('/v0/products/a%2Fb')).toBe('/v0/products/a%2Fb');
    expect(routerPath('/v0/%zz')).toBe('/v0/%zz');
  });
});

describe('RouteTable', () => {
  it('finds the methods of a route however its target is spelled, and none for a trailing slash', () => {
    const table = new RouteTable();
    table.add('/v0/products', ['GET', 'HEAD']);
    table.add('/v0/products', 'POST');
    table.add('/v0/products/:id', ['GET', 'PATCH']);
    expect(table.methodsFor('/v%30/products')).toEqual(['GET', 'POST']);
    expect(table.methodsFor('http://h/v0/products/prod_1')).toEqual(['GET', 'PATCH']);
    expect(table.methodsFor('/v0/products/')).toEqual([]);
  });
});
