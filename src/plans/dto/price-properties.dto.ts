import { ApiProperty } from '@nestjs/swagger';
import { DECIMAL_PATTERN } from '../../common/money/decimal';

/** Every amount is a decimal string (docs/api.md §1). */
const DECIMAL = DECIMAL_PATTERN.source;

/** `properties` of a `standard` price: one amount per unit. */
export class StandardPriceProperties {
  /** Price per unit of the billable metric, a decimal string. */
  @ApiProperty({ example: '0.25', pattern: DECIMAL })
  unitPrice: string;
}

/** `properties` of a `dynamic` price: an amount set later, within bounds. */
export class DynamicPriceProperties {
  /** Lowest price per unit, a decimal string; at most maxPrice. */
  @ApiProperty({ example: '0.10', pattern: DECIMAL })
  minPrice: string;

  /** Highest price per unit, a decimal string. */
  @ApiProperty({ example: '0.50', pattern: DECIMAL })
  maxPrice: string;
}

export class VolumePriceParameters {
  /** The only function so far. */
  @ApiProperty({ enum: ['linear'], example: 'linear' })
  function: 'linear';

  /** Slope of the price curve, a decimal string. */
  @ApiProperty({ example: '0.001', pattern: DECIMAL })
  gradient: string;

  /** Lower bound, a decimal string; at most max. */
  @ApiProperty({ example: '0', pattern: DECIMAL })
  min: string;

  /** Upper bound, a decimal string. */
  @ApiProperty({ example: '10000', pattern: DECIMAL })
  max: string;
}

/** `properties` of a `volume` price: a default price and a linear curve. */
export class VolumePriceProperties {
  /** Default price per unit, a decimal string. */
  @ApiProperty({ example: '0.20', pattern: DECIMAL })
  default: string;

  @ApiProperty({ type: VolumePriceParameters })
  parameters: VolumePriceParameters;
}

export const PRICE_PROPERTIES_MODELS = [
  StandardPriceProperties,
  DynamicPriceProperties,
  VolumePriceProperties,
];
