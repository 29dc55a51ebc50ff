import { ApiError, MAX_FIELD_ERRORS, NotFoundError, ValidationFailedError } from './api-error';
import { ID_PREFIXES, NamedResource, RESOURCE_NAMES } from '../ids';

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
  it.each<[NamedResource, string, string]>([
    ['product', 'product', 'prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    ['billableMetric', 'billable metric', 'bm_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    ['price', 'price', 'price_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    ['plan', 'plan', 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    ['externalBankAccount', 'external bank account', 'eba_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    ['event', 'event', 'evt_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    ['webhookEndpoint', 'webhook endpoint', 'we_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    ['organization', 'organization', 'org_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
    ['apiKey', 'API key', 'key_01JD3Y2Q6J8C4N1V9W5X7Z0ABC'],
  ])('echoes a well-formed id of a %s, named as a client reads it', (resource, name, id) => {
    const err = new NotFoundError(resource, id);
    expect(err.message).toBe(`No such ${name}: '${id}'`);
    expect(err).toMatchObject({ category: 'not_found', code: 'RESOURCE_NOT_FOUND', status: 404 });
  });

  it.each<[string, NamedResource, string, string]>([
    ['an IBAN', 'externalBankAccount', 'external bank account', 'DE89370400440532013000'],
    ['an API key', 'product', 'product', 'sk_live_KfIC0123456789abcdefghijklmnopqr'],
    [
      'an id of another kind',
      'externalBankAccount',
      'external bank account',
      'prod_01JD3Y2Q6J8C4N1V9W5X7Z0ABC',
    ],
    ['an id of a bad shape', 'plan', 'plan', 'plan_short'],
    ['a value with quotes', 'price', 'price', "x'; DROP TABLE plans; --"],
  ])('leaves out %s', (_what, resource, name, id) => {
    const err = new NotFoundError(resource, id);
    expect(err.message).toBe(`No such ${name}`);
    expect(err.code).toBe('RESOURCE_NOT_FOUND');
  });

  it('names every resource a client reaches by id, each with an id prefix', () => {
    for (const [resource, name] of Object.entries(RESOURCE_NAMES)) {
      expect(Object.hasOwn(ID_PREFIXES, resource)).toBe(true);
      expect(name).toMatch(/^[A-Za-z ]+$/);
    }
  });
});
