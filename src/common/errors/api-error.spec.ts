import { ApiError, MAX_FIELD_ERRORS, NotFoundError, ValidationFailedError } from './api-error';

const problems = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ field: `f${i}`, code: 'unknown_field', message: 'x' }));

describe('ApiError errors', () => {
  it('keeps every entry, and the message, when there are at most 100', () => {
    const err = new ValidationFailedError(problems(MAX_FIELD_ERRORS));
    expect(err.errors).toHaveLength(100);
    expect(err.message).toBe('Request validation failed');
  });

  it('keeps the first 100 entries and says how many problems there were', () => {
    const err = new ApiError('validation_error', 'Request validation failed', {
      errors: problems(250),
    });
    expect(err.errors).toHaveLength(100);
    expect(err.errors?.[99].field).toBe('f99');
    expect(err.message).toBe(
      'Request validation failed (250 problems were found; the first 100 are listed)',
    );
  });

  it('cuts a field path longer than 200 characters, counting code points', () => {
    const err = ValidationFailedError.field('😀'.repeat(300), 'unknown_field', 'x');
    expect([...err.errors![0].field]).toHaveLength(200);
    expect(err.errors![0].field.endsWith('…')).toBe(true);
  });
});

describe('NotFoundError', () => {
  it.each([
    ['product', 'prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    ['billable metric', 'bm_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    ['price', 'price_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    ['plan', 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    ['external bank account', 'eba_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    ['event', 'evt_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    ['webhook endpoint', 'we_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    ['organization', 'org_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    ['API key', 'key_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
  ])('echoes a well-formed id of a %s', (resource, id) => {
    const err = new NotFoundError(resource, id);
    expect(err.message).toBe(`No such ${resource}: '${id}'`);
    expect(err).toMatchObject({ category: 'not_found', code: 'RESOURCE_NOT_FOUND', status: 404 });
  });

  it.each([
    ['an IBAN', 'external bank account', 'DE89370400440532013000'],
    ['an API key', 'product', 'sk_live_KfIC0123456789abcdefghijklmnopqr'],
    ['an id of another kind', 'external bank account', 'prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    ['an id of a bad shape', 'plan', 'plan_short'],
    ['a value with quotes', 'price', "x'; DROP TABLE plans; --"],
    ['an id of a resource it does not know', 'coupon', 'prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    ['an id named by a prototype key', 'constructor', 'prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
  ])('leaves out %s', (_what, resource, id) => {
    const err = new NotFoundError(resource, id);
    expect(err.message).toBe(`No such ${resource}`);
    expect(err.code).toBe('RESOURCE_NOT_FOUND');
  });
});
