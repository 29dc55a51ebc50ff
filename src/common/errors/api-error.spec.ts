import { ApiError, MAX_FIELD_ERRORS, ValidationFailedError } from './api-error';

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
