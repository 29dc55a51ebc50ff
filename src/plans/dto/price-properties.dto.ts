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

/** `properties` of a `package` price: a price per started package of units. */
export class PackagePriceProperties {
  /** Units in one package, a decimal string above 0. */
  @ApiProperty({ example: '1000', pattern: DECIMAL })
  packageSize: string;

  /** Price of each package started, a decimal string. */
  @ApiProperty({ example: '5', pattern: DECIMAL })
  packagePrice: string;
}

/** One tier of a `graduated` price. */
export class GraduatedPriceTier {
  /** The last unit of this tier, a decimal string above the previous tier's; null on the last tier only. */
  @ApiProperty({ type: String, nullable: true, example: '1000', pattern: DECIMAL })
  upTo: string | null;

  /** Price of each unit in this tier, a decimal string. */
  @ApiProperty({ example: '0.01', pattern: DECIMAL })
  unitPrice: string;

  /** Charged once when the quantity reaches into this tier, a decimal string; "0" when left out. */
  @ApiProperty({ example: '0', pattern: DECIMAL, default: '0' })
  flatPrice: string;
}

/** `properties` of a `graduated` price: each tier prices the units that fall in it. */
export class GraduatedPriceProperties {
  /** 1-20 tiers, `upTo` strictly increasing, null on the last. */
  @ApiProperty({ type: [GraduatedPriceTier], minItems: 1, maxItems: 20 })
  tiers: GraduatedPriceTier[];
}

/** `properties` of a `percentage` price: a share of the quantity, within bounds. */
export class PercentagePriceProperties {
  /** A fraction from 0 to 10 with at most 4 decimals: "0.03" is 3%. */
  @ApiProperty({ example: '0.03', pattern: DECIMAL })
  percentage: string;

  /** Least charge for a period (also its charge when the quantity is 0); at most maxCharge. */
  @ApiProperty({ example: '0.50', pattern: DECIMAL })
  minCharge: string;

  /** Most charge for a period, a decimal string. */
  @ApiProperty({ example: '100', pattern: DECIMAL })
  maxCharge: string;
}

export const PRICE_PROPERTIES_MODELS = [
  StandardPriceProperties,
  DynamicPriceProperties,
  VolumePriceProperties,
  PackagePriceProperties,
  GraduatedPriceProperties,
  PercentagePriceProperties,
];
