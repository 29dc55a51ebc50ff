import { IsInt, IsString, validateSync } from 'class-validator';
import { memoizeValidationMetadata } from './validation.pipe';

describe('memoizeValidationMetadata', () => {
  beforeAll(() => memoizeValidationMetadata());

  class Base {
    @IsString()
    name: unknown;
  }

  class Child extends Base {
    @IsInt()
    count: unknown;
  }

  const check = (object: object) =>
    validateSync(object, { whitelist: true, forbidNonWhitelisted: true })
      .map((e) => `${e.property}:${Object.keys(e.constraints ?? {}).join(',')}`)
      .sort();

  it('validates the same way every time, inherited rules and unknown fields included', () => {
    const child = Object.assign(new Child(), { name: 1, count: 'x', extra: true });
    const expected = ['count:isInt', 'extra:whitelistValidation', 'name:isString'];
    expect(check(child)).toEqual(expected);
    expect(check(child)).toEqual(expected);
    expect(check(Object.assign(new Child(), { name: 'ok', count: 2 }))).toEqual([]);
  });

  it('sees the rules of a class defined after validations were remembered', () => {
    check(Object.assign(new Child(), { name: 'ok', count: 2 }));
    class Later {
      @IsInt()
      size: unknown;
    }
    expect(check(Object.assign(new Later(), { size: 'big' }))).toEqual(['size:isInt']);
  });
});
