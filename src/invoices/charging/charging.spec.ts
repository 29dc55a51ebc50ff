import {
  ChargedPrice,
  chargeFor,
  dynamicUsage,
  fixedFeeLineAmount,
  formatMoney,
  invoiceTotals,
  lineAmount,
  minorUnitDigits,
  usageLineAmount,
  Decimal,
} from '.';

const standard = (unitPrice: string): ChargedPrice => ({
  model: 'standard',
  properties: { unitPrice },
});

describe('minor units (ISO 4217)', () => {
  it.each([
    ['USD', 2],
    ['EUR', 2],
    ['JPY', 0],
    ['CLP', 0],
    ['BHD', 3],
    ['KWD', 3],
    ['XCG', 2],
  ] as const)('%s has %i digits', (currency, digits) =>
    expect(minorUnitDigits(currency)).toBe(digits),
  );

  it.each([
    ['12.3', 'USD', '12.30'],
    ['1230', 'JPY', '1230'],
    ['12.3', 'BHD', '12.300'],
    ['0', 'USD', '0.00'],
    ['0', 'JPY', '0'],
    ['-0.001', 'USD', '0.00'],
    ['-1.5', 'USD', '-1.50'],
  ])('prints %s %s as %s', (value, currency, printed) =>
    expect(formatMoney(new Decimal(value), currency)).toBe(printed),
  );
});

describe('one rounding per line, half away from zero', () => {
  it.each([
    ['0.005', 'USD', '0.01'],
    ['0.015', 'USD', '0.02'],
    ['0.025', 'USD', '0.03'],
    ['0.004999999999', 'USD', '0.00'],
    ['2.5', 'JPY', '3'],
    ['3.5', 'JPY', '4'],
    ['0.49', 'JPY', '0'],
    ['0.0005', 'BHD', '0.001'],
    ['1.2345', 'BHD', '1.235'],
    ['1.23449', 'BHD', '1.234'],
    ['-0.005', 'USD', '-0.01'],
    ['-2.5', 'JPY', '-3'],
  ])('rounds %s %s to %s', (exact, currency, amount) =>
    expect(lineAmount(new Decimal(exact), currency)).toBe(amount),
  );

  it('rounds the exact product, not a rounded factor', () => {
    // 3 × 0.335 = 1.005 exactly: a binary float makes it 1.00499… and rounds down.
    expect(usageLineAmount(standard('0.335'), { quantity: '3' }, 'USD')).toBe('1.01');
    expect(usageLineAmount(standard('0.000000000001'), { quantity: '5000000000' }, 'USD')).toBe(
      '0.01',
    );
  });

  it('keeps every digit of the largest amounts', () => {
    expect(
      usageLineAmount(standard('123456789012345678.123456789012'), { quantity: '1' }, 'USD'),
    ).toBe('123456789012345678.12');
    expect(
      usageLineAmount(
        standard('999999999999999999.999999999999'),
        { quantity: '999999999999999999.999999999999' },
        'BHD',
      ),
    ).toBe('999999999999999999999999999998000000.000'); // 10^36 − 2·10^6 + 10^−24
  });
});

describe('standard: q × unitPrice', () => {
  it.each([
    ['0', '0.25', '0.00'],
    ['1', '0.25', '0.25'],
    ['10', '0.25', '2.50'],
    ['1.5', '0.333', '0.50'],
    ['7', '0.0015', '0.01'], // 0.0105
    ['3', '0.0015', '0.00'], // 0.0045
  ])('q = %s at %s charges %s', (quantity, unitPrice, amount) =>
    expect(usageLineAmount(standard(unitPrice), { quantity }, 'USD')).toBe(amount),
  );
});

describe('package: ⌈q / packageSize⌉ × packagePrice', () => {
  const pkg = (packageSize: string, packagePrice: string): ChargedPrice => ({
    model: 'package',
    properties: { packageSize, packagePrice },
  });
  it.each([
    ['0', '100', '5', '0.00'],
    ['1', '100', '5', '5.00'],
    ['100', '100', '5', '5.00'],
    ['100.000000000001', '100', '5', '10.00'],
    ['101', '100', '5', '10.00'],
    ['250', '100', '5', '15.00'],
    ['0.3', '0.1', '1', '3.00'],
    ['0.31', '0.1', '1', '4.00'],
    ['3', '2.5', '0.125', '0.25'],
  ])('q = %s in packages of %s at %s charges %s', (quantity, size, price, amount) =>
    expect(usageLineAmount(pkg(size, price), { quantity }, 'USD')).toBe(amount),
  );
});

describe('graduated: each tier its units, plus its flat price when q reaches into it', () => {
  const tiers: ChargedPrice = {
    model: 'graduated',
    properties: {
      tiers: [
        { upTo: '100', unitPrice: '0.10', flatPrice: '1' },
        { upTo: '1000', unitPrice: '0.05', flatPrice: '2' },
        { upTo: null, unitPrice: '0.01', flatPrice: '0' },
      ],
    },
  };
  it.each([
    ['0', '0.00'], // no flat price at q = 0
    ['0.5', '1.05'], // the first tier's flat price whenever q > 0
    ['1', '1.10'],
    ['100', '11.00'], // exactly at the boundary: tier 2 not reached
    ['100.5', '13.03'], // 1 + 10 + 2 + 0.025 = 13.025
    ['101', '13.05'],
    ['1000', '58.00'], // 1 + 10 + 2 + 45
    ['1001', '58.01'],
    ['2000', '68.00'],
  ])('q = %s charges %s', (quantity, amount) =>
    expect(usageLineAmount(tiers, { quantity }, 'USD')).toBe(amount),
  );

  it('treats a missing flatPrice as 0 and one open tier as every unit', () => {
    const one: ChargedPrice = {
      model: 'graduated',
      properties: { tiers: [{ upTo: null, unitPrice: '2' }] },
    };
    expect(usageLineAmount(one, { quantity: '3' }, 'JPY')).toBe('6');
  });
});

describe('volume: q × u, u = default − gradient × q within [min, max]', () => {
  const volume: ChargedPrice = {
    model: 'volume',
    properties: {
      default: '1',
      parameters: { function: 'linear', gradient: '0.01', min: '0.2', max: '0.9' },
    },
  };
  it.each([
    ['0', '0.00'],
    ['5', '4.50'], // u = 0.95 → 0.9
    ['10', '9.00'], // u = 0.9
    ['50', '25.00'], // u = 0.5
    ['80', '16.00'], // u = 0.2
    ['100', '20.00'], // u = 0 → 0.2
  ])('q = %s charges %s', (quantity, amount) =>
    expect(usageLineAmount(volume, { quantity }, 'USD')).toBe(amount),
  );
});

describe('percentage: q × percentage within [minCharge, maxCharge]', () => {
  const pct: ChargedPrice = {
    model: 'percentage',
    properties: { percentage: '0.029', minCharge: '0.5', maxCharge: '100' },
  };
  it.each([
    ['0', '0.50'], // q = 0 charges minCharge
    ['10', '0.50'],
    ['100', '2.90'],
    ['150.5', '4.36'], // 4.3645
    ['150.86', '4.37'], // 4.37494
    ['10000', '100.00'],
  ])('q = %s charges %s', (quantity, amount) =>
    expect(usageLineAmount(pct, { quantity }, 'USD')).toBe(amount),
  );
  it('charges a half exactly on the half', () => {
    const p: ChargedPrice = {
      model: 'percentage',
      properties: { percentage: '0.05', minCharge: '0', maxCharge: '1000000' },
    };
    expect(usageLineAmount(p, { quantity: '0.1' }, 'USD')).toBe('0.01'); // 0.005
    expect(usageLineAmount(p, { quantity: '10' }, 'JPY')).toBe('1'); // 0.5
  });
});

describe('dynamic: Σ value × the event’s unitPrice (minPrice without one), within [minPrice, maxPrice]', () => {
  const dyn: ChargedPrice = { model: 'dynamic', properties: { minPrice: '0.01', maxPrice: '10' } };
  it.each([
    [[], '0', '0.01'], // no usage: the sum 0 is kept at minPrice, as percentage's minCharge
    [[{ value: '10', unitPrice: '0.5' }], '10', '5.00'],
    [[{ value: '10', unitPrice: null }], '10', '0.10'], // no unitPrice: counts at minPrice
    [[{ value: '10', unitPrice: '5' }], '10', '10.00'], // 50 kept at maxPrice
    [[{ value: '1', unitPrice: '0.0001' }], '1', '0.01'], // 0.0001 kept at minPrice
    [
      [
        { value: '1', unitPrice: '0.25' },
        { value: '2', unitPrice: null },
        { value: '3', unitPrice: '0.335' },
      ],
      '6',
      '1.28', // 0.25 + 0.02 + 1.005 = 1.275
    ],
  ] as const)('events %j charge %s', (events, quantity, amount) =>
    expect(usageLineAmount(dyn, { quantity, dynamic: dynamicUsage(events) }, 'USD')).toBe(amount),
  );
});

describe('the fixed fee, prorated by milliseconds', () => {
  const period = {
    start: new Date('2026-01-01T00:00:00.000Z'),
    end: new Date('2026-02-01T00:00:00.000Z'),
  };
  it('charges exactly fixedFee for the whole period', () => {
    expect(fixedFeeLineAmount('10', period, period, 'USD')).toBe('10.00');
    expect(fixedFeeLineAmount('0.333333333333', period, period, 'USD')).toBe('0.33');
  });
  it.each([
    ['2026-01-16T12:00:00.000Z', '31', 'USD', '15.50'], // half of 31 days
    ['2026-01-11T00:00:00.000Z', '31', 'USD', '10.00'], // 10 of 31 days
    ['2026-01-01T00:00:00.001Z', '31', 'USD', '0.00'],
    ['2026-01-11T00:00:00.000Z', '1000', 'JPY', '323'], // 322.58…
    ['2026-01-11T00:00:00.000Z', '10', 'BHD', '3.226'], // 3.2258…
  ])('up to %s of a %s fee charges %s %s', (end, fee, currency, amount) =>
    expect(
      fixedFeeLineAmount(fee, period, { start: period.start, end: new Date(end) }, currency),
    ).toBe(amount),
  );
  it('charges a half exactly on the half', () => {
    // 0.01 over half the period is 0.005 exactly.
    const billed = { start: period.start, end: new Date('2026-01-16T12:00:00.000Z') };
    expect(fixedFeeLineAmount('0.01', period, billed, 'USD')).toBe('0.01');
    expect(fixedFeeLineAmount('1', period, billed, 'JPY')).toBe('1');
  });
});

describe('totals: subtotal the sum of the lines, tax rounded once on it', () => {
  it.each([
    [['10.00', '0.01'], 'exclusive', '0', 'USD', '10.01', '0.00', '10.01'],
    [['10.00', '0.01'], 'exclusive', '20', 'USD', '10.01', '2.00', '12.01'], // 2.002
    [['0.10'], 'exclusive', '5', 'USD', '0.10', '0.01', '0.11'], // 0.005 on the half
    [['0.30', '0.30', '0.30'], 'exclusive', '8.25', 'USD', '0.90', '0.07', '0.97'], // 0.07425
    [['12.00'], 'inclusive', '20', 'USD', '12.00', '2.00', '12.00'],
    [['10.00'], 'inclusive', '20', 'USD', '10.00', '1.67', '10.00'], // 1.6666…
    [['100'], 'exclusive', '10', 'JPY', '100', '10', '110'],
    [['105'], 'exclusive', '10', 'JPY', '105', '11', '116'], // 10.5
    [['1.005'], 'exclusive', '10', 'BHD', '1.005', '0.101', '1.106'], // 0.1005
    [['1.050'], 'inclusive', '5', 'BHD', '1.050', '0.050', '1.050'],
    [[], 'exclusive', '20', 'USD', '0.00', '0.00', '0.00'],
    [['-1.00', '3.00'], 'exclusive', '10', 'USD', '2.00', '0.20', '2.20'],
  ] as const)(
    'lines %j, %s %s%% in %s',
    (lines, behavior, rate, currency, subtotal, tax, total) => {
      const totals = invoiceTotals([...lines], { behavior, rate }, currency);
      expect(totals).toEqual({ subtotal, tax: { behavior, rate, amount: tax }, total });
    },
  );

  it('sums rounded lines, not the exact charges', () => {
    // Three lines of 0.005 each: 0.01 + 0.01 + 0.01, where the exact sum would round to 0.02.
    const amounts = ['1', '1', '1'].map((quantity) =>
      usageLineAmount(standard('0.005'), { quantity }, 'USD'),
    );
    expect(invoiceTotals(amounts, { behavior: 'exclusive', rate: '0' }, 'USD').subtotal).toBe(
      '0.03',
    );
  });

  it('computes chargeFor exactly, without rounding', () => {
    expect(chargeFor(standard('0.005'), { quantity: '3' }).toFixed()).toBe('0.015');
  });
});
