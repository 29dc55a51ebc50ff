import { PriceModel, canonicalProperties, parsePriceProperties } from './price-properties';

const volume = (parameters: Record<string, unknown> = {}, rest: Record<string, unknown> = {}) => ({
  default: '10',
  parameters: { function: 'linear', gradient: '0.5', min: '0', max: '1000', ...parameters },
  ...rest,
});

describe('parsePriceProperties', () => {
  describe('accepts', () => {
    it.each<[string, PriceModel, unknown]>([
      ['a standard unit price', 'standard', { unitPrice: '0.25' }],
      ['a zero standard unit price', 'standard', { unitPrice: '0' }],
      ['the smallest amount', 'standard', { unitPrice: '0.000000000001' }],
      ['the largest amount', 'standard', { unitPrice: '123456789012345678.123456789012' }],
      ['trailing zeros', 'standard', { unitPrice: '0.00002' }],
      ['a dynamic range', 'dynamic', { minPrice: '1', maxPrice: '2.5' }],
      ['a dynamic range of one value', 'dynamic', { minPrice: '2.50', maxPrice: '2.5' }],
      ['a volume price', 'volume', volume()],
      ['a volume price with min equal to max', 'volume', volume({ min: '5', max: '5.000' })],
    ])('%s', (_label, model, value) => {
      const result = parsePriceProperties(model, value);
      expect(result).toEqual({ ok: true, properties: value });
    });
  });

  describe('rejects', () => {
    it.each<[string, PriceModel, unknown, { field: string; code: string }[]]>([
      ['a non-object', 'standard', 'x', [{ field: 'properties', code: 'invalid_type' }]],
      ['an array', 'standard', [], [{ field: 'properties', code: 'invalid_type' }]],
      ['null', 'standard', null, [{ field: 'properties', code: 'invalid_type' }]],
      [
        'a missing unit price',
        'standard',
        {},
        [{ field: 'properties.unitPrice', code: 'required' }],
      ],
      [
        'a null amount',
        'standard',
        { unitPrice: null },
        [{ field: 'properties.unitPrice', code: 'invalid_type' }],
      ],
      [
        'null parameters and a null function',
        'volume',
        { ...volume(), parameters: null },
        [{ field: 'properties.parameters', code: 'invalid_type' }],
      ],
      [
        'a null volume function',
        'volume',
        volume({ function: null }),
        [{ field: 'properties.parameters.function', code: 'invalid_type' }],
      ],
      [
        'a number',
        'standard',
        { unitPrice: 1.5 },
        [{ field: 'properties.unitPrice', code: 'invalid_decimal' }],
      ],
      [
        'exponent notation',
        'standard',
        { unitPrice: '1e-5' },
        [{ field: 'properties.unitPrice', code: 'invalid_decimal' }],
      ],
      [
        'a negative amount',
        'standard',
        { unitPrice: '-1' },
        [{ field: 'properties.unitPrice', code: 'invalid_decimal' }],
      ],
      [
        'a leading zero',
        'standard',
        { unitPrice: '01' },
        [{ field: 'properties.unitPrice', code: 'invalid_decimal' }],
      ],
      [
        'a leading space',
        'standard',
        { unitPrice: ' 1' },
        [{ field: 'properties.unitPrice', code: 'invalid_decimal' }],
      ],
      [
        '19 integer digits',
        'standard',
        { unitPrice: '1234567890123456789' },
        [{ field: 'properties.unitPrice', code: 'invalid_decimal' }],
      ],
      [
        '13 fractional digits',
        'standard',
        { unitPrice: '0.0000000000001' },
        [{ field: 'properties.unitPrice', code: 'invalid_decimal' }],
      ],
      [
        'an extra key',
        'standard',
        { unitPrice: '1', currency: 'USD' },
        [{ field: 'properties.currency', code: 'unknown_field' }],
      ],
      [
        'keys of another model',
        'standard',
        { minPrice: '1', maxPrice: '2' },
        [
          { field: 'properties.unitPrice', code: 'required' },
          { field: 'properties.minPrice', code: 'unknown_field' },
          { field: 'properties.maxPrice', code: 'unknown_field' },
        ],
      ],
      [
        'minPrice above maxPrice',
        'dynamic',
        { minPrice: '10', maxPrice: '9.999999999999' },
        [{ field: 'properties.minPrice', code: 'invalid_range' }],
      ],
      [
        'a missing maxPrice',
        'dynamic',
        { minPrice: '1' },
        [{ field: 'properties.maxPrice', code: 'required' }],
      ],
      [
        'a volume function other than linear',
        'volume',
        volume({ function: 'exponential' }),
        [{ field: 'properties.parameters.function', code: 'invalid_value' }],
      ],
      [
        'volume min above max',
        'volume',
        volume({ min: '100', max: '99' }),
        [{ field: 'properties.parameters.min', code: 'invalid_range' }],
      ],
      [
        'volume parameters that are not an object',
        'volume',
        { default: '1', parameters: 'linear' },
        [{ field: 'properties.parameters', code: 'invalid_type' }],
      ],
      [
        'missing volume parameters',
        'volume',
        { default: '1' },
        [{ field: 'properties.parameters', code: 'required' }],
      ],
      [
        'an extra volume parameter',
        'volume',
        volume({ step: '1' }),
        [{ field: 'properties.parameters.step', code: 'unknown_field' }],
      ],
      [
        'a bad default and a bad gradient together',
        'volume',
        volume({ gradient: 0.5 }, { default: '' }),
        [
          { field: 'properties.default', code: 'invalid_decimal' },
          { field: 'properties.parameters.gradient', code: 'invalid_decimal' },
        ],
      ],
    ])('%s', (_label, model, value, expected) => {
      const result = parsePriceProperties(model, value);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.errors.map(({ field, code }) => ({ field, code }))).toEqual(expected);
        for (const e of result.errors) expect(e.message).toEqual(expect.any(String));
      }
    });
  });
});

describe('canonicalProperties', () => {
  it('puts stored keys back in the documented order', () => {
    const stored = {
      parameters: { max: '9', min: '1', gradient: '2', function: 'linear' },
      default: '3',
    };
    expect(JSON.stringify(canonicalProperties('volume', stored))).toBe(
      '{"default":"3","parameters":{"function":"linear","gradient":"2","min":"1","max":"9"}}',
    );
    expect(JSON.stringify(canonicalProperties('dynamic', { maxPrice: '2', minPrice: '1' }))).toBe(
      '{"minPrice":"1","maxPrice":"2"}',
    );
  });
});
