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

describe('the package, graduated and percentage models', () => {
  const tiers = (...list: Record<string, unknown>[]) => ({ tiers: list });

  it.each<[string, PriceModel, unknown, unknown]>([
    [
      'a package',
      'package',
      { packageSize: '100', packagePrice: '5' },
      { packageSize: '100', packagePrice: '5' },
    ],
    [
      'a fractional package',
      'package',
      { packageSize: '0.5', packagePrice: '0' },
      { packageSize: '0.5', packagePrice: '0' },
    ],
    [
      'graduated tiers, flatPrice defaulting to "0"',
      'graduated',
      tiers({ upTo: '100', unitPrice: '0.1', flatPrice: '1' }, { unitPrice: '0.05', upTo: null }),
      tiers(
        { upTo: '100', unitPrice: '0.1', flatPrice: '1' },
        { upTo: null, unitPrice: '0.05', flatPrice: '0' },
      ),
    ],
    [
      'one open tier',
      'graduated',
      tiers({ upTo: null, unitPrice: '1' }),
      tiers({ upTo: null, unitPrice: '1', flatPrice: '0' }),
    ],
    [
      'a percentage',
      'percentage',
      { percentage: '0.03', minCharge: '0', maxCharge: '100' },
      { percentage: '0.03', minCharge: '0', maxCharge: '100' },
    ],
    [
      'the largest percentage with four decimals',
      'percentage',
      { percentage: '9.9999', minCharge: '1', maxCharge: '1' },
      { percentage: '9.9999', minCharge: '1', maxCharge: '1' },
    ],
    [
      'a percentage of 10',
      'percentage',
      { percentage: '10.0000', minCharge: '1', maxCharge: '2' },
      { percentage: '10.0000', minCharge: '1', maxCharge: '2' },
    ],
  ])('accepts %s', (_label, model, value, properties) => {
    expect(parsePriceProperties(model, value)).toEqual({ ok: true, properties });
    expect(canonicalProperties(model, value)).toEqual(properties);
  });

  const twenty = Array.from({ length: 20 }, (_, i) => ({
    upTo: i === 19 ? null : String(i + 1),
    unitPrice: '1',
  }));

  it('accepts 20 tiers', () => {
    expect(parsePriceProperties('graduated', { tiers: twenty }).ok).toBe(true);
  });

  it.each<[string, PriceModel, unknown, { field: string; code: string }[]]>([
    [
      'a package size of 0',
      'package',
      { packageSize: '0', packagePrice: '5' },
      [{ field: 'properties.packageSize', code: 'invalid_range' }],
    ],
    [
      'a missing package price',
      'package',
      { packageSize: '1' },
      [{ field: 'properties.packagePrice', code: 'required' }],
    ],
    [
      'tiers that are not an array',
      'graduated',
      { tiers: {} },
      [{ field: 'properties.tiers', code: 'invalid_type' }],
    ],
    [
      'no tiers',
      'graduated',
      { tiers: [] },
      [{ field: 'properties.tiers', code: 'invalid_length' }],
    ],
    [
      '21 tiers',
      'graduated',
      { tiers: [{ upTo: '0.5', unitPrice: '1' }, ...twenty] },
      [{ field: 'properties.tiers', code: 'invalid_length' }],
    ],
    [
      'a last tier with an upTo',
      'graduated',
      tiers({ upTo: '10', unitPrice: '1' }),
      [{ field: 'properties.tiers[0].upTo', code: 'invalid_value' }],
    ],
    [
      'a null upTo before the last tier',
      'graduated',
      tiers({ upTo: null, unitPrice: '1' }, { upTo: null, unitPrice: '1' }),
      [{ field: 'properties.tiers[0].upTo', code: 'invalid_value' }],
    ],
    [
      'an upTo not above the previous one',
      'graduated',
      tiers(
        { upTo: '10', unitPrice: '1' },
        { upTo: '10.0', unitPrice: '1' },
        { upTo: null, unitPrice: '1' },
      ),
      [{ field: 'properties.tiers[1].upTo', code: 'invalid_range' }],
    ],
    [
      'a first upTo of 0',
      'graduated',
      tiers({ upTo: '0', unitPrice: '1' }, { upTo: null, unitPrice: '1' }),
      [{ field: 'properties.tiers[0].upTo', code: 'invalid_range' }],
    ],
    [
      'a missing upTo',
      'graduated',
      tiers({ unitPrice: '1' }),
      [{ field: 'properties.tiers[0].upTo', code: 'required' }],
    ],
    [
      'a tier that is not an object',
      'graduated',
      { tiers: ['1'] },
      [{ field: 'properties.tiers[0]', code: 'invalid_type' }],
    ],
    [
      'a numeric unit price and an unknown key in a tier',
      'graduated',
      tiers({ upTo: null, unitPrice: 1, extra: '1' }),
      [
        { field: 'properties.tiers[0].unitPrice', code: 'invalid_decimal' },
        { field: 'properties.tiers[0].extra', code: 'unknown_field' },
      ],
    ],
    [
      'a null flatPrice',
      'graduated',
      tiers({ upTo: null, unitPrice: '1', flatPrice: null }),
      [{ field: 'properties.tiers[0].flatPrice', code: 'invalid_type' }],
    ],
    [
      'a percentage above 10',
      'percentage',
      { percentage: '10.0001', minCharge: '0', maxCharge: '1' },
      [{ field: 'properties.percentage', code: 'invalid_range' }],
    ],
    [
      'a percentage with five decimals',
      'percentage',
      { percentage: '0.00001', minCharge: '0', maxCharge: '1' },
      [{ field: 'properties.percentage', code: 'invalid_range' }],
    ],
    [
      'minCharge above maxCharge',
      'percentage',
      { percentage: '0.03', minCharge: '2', maxCharge: '1' },
      [{ field: 'properties.minCharge', code: 'invalid_range' }],
    ],
  ])('rejects %s', (_label, model, value, expected) => {
    const result = parsePriceProperties(model, value);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors.map(({ field, code }) => ({ field, code }))).toEqual(expected);
    }
  });
});
