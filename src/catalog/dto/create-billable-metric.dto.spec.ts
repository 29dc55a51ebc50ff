import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { flattenValidationErrors } from '../../platform/validation.pipe';
import { AGGREGATIONS } from '../entities/billable-metric.entity';
import { CreateBillableMetricDto } from './create-billable-metric.dto';

const ABSENT = Symbol('absent');

/** The field errors a body gets, as { field: code }. */
async function errorsOf(body: Record<string, unknown>): Promise<Record<string, string>> {
  const dto = plainToInstance(CreateBillableMetricDto, body);
  const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true });
  return Object.fromEntries(flattenValidationErrors(errors).map((e) => [e.field, e.code]));
}

function body(aggregation: unknown, valueProperty: unknown): Record<string, unknown> {
  const base: Record<string, unknown> = {
    productId: 'prod_01JD3Y7K2M5N8P1Q4R6S9T0VWX',
    name: 'Tokens',
    unit: 'token',
    aggregation,
  };
  if (valueProperty !== ABSENT) base.valueProperty = valueProperty;
  return base;
}

describe('CreateBillableMetricDto: valueProperty against aggregation', () => {
  const needsProperty = AGGREGATIONS.filter((a) => a !== 'COUNT');

  it.each(needsProperty)('%s needs a valueProperty', async (aggregation) => {
    expect(await errorsOf(body(aggregation, '$.tokens'))).toEqual({});
    expect(await errorsOf(body(aggregation, ABSENT))).toEqual({ valueProperty: 'required' });
    expect(await errorsOf(body(aggregation, null))).toEqual({ valueProperty: 'invalid_type' });
    expect(await errorsOf(body(aggregation, 'tokens'))).toEqual({
      valueProperty: 'invalid_format',
    });
  });

  it('COUNT takes no valueProperty: absent or null pass, any value is refused', async () => {
    expect(await errorsOf(body('COUNT', ABSENT))).toEqual({});
    expect(await errorsOf(body('COUNT', null))).toEqual({});
    expect(await errorsOf(body('COUNT', '$.tokens'))).toEqual({
      valueProperty: 'field_not_allowed',
    });
    expect(await errorsOf(body('COUNT', 'not a path'))).toEqual({
      valueProperty: 'field_not_allowed',
    });
    expect(await errorsOf(body('COUNT', 3))).toEqual({ valueProperty: 'invalid_type' });
  });

  it.each([
    ['a missing aggregation', ABSENT],
    ['AVG', 'AVG'],
    ['sum (lower case)', 'sum'],
    ['a number', 1],
    ['null', null],
  ])('%s is the only error when valueProperty is absent', async (_label, aggregation) => {
    const errors = await errorsOf(
      aggregation === ABSENT ? body(undefined, ABSENT) : body(aggregation, ABSENT),
    );
    expect(Object.keys(errors)).toEqual(['aggregation']);
  });

  it('an unknown aggregation still checks a valueProperty that is sent', async () => {
    expect(await errorsOf(body('AVG', 'tokens'))).toEqual({
      aggregation: 'invalid_value',
      valueProperty: 'invalid_format',
    });
  });
});
