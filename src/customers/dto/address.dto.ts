import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, ValidateNested } from 'class-validator';
import { IsCountryCode } from '../../common/iso';
import { IsName } from '../../common/validation/decorators';
import { Address } from '../entities/customer.entity';

/** A postal address: `country` is required; every other field 1-200 characters or null. */
export class AddressDto {
  /** Street and number. */
  @ApiPropertyOptional({ type: String, nullable: true, example: '1 Market Street' })
  @IsOptional()
  @IsName()
  line1?: string | null;

  /** Apartment, suite, floor. */
  @ApiPropertyOptional({ type: String, nullable: true, example: 'Suite 300' })
  @IsOptional()
  @IsName()
  line2?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'San Francisco' })
  @IsOptional()
  @IsName()
  city?: string | null;

  /** State, province or region. */
  @ApiPropertyOptional({ type: String, nullable: true, example: 'CA' })
  @IsOptional()
  @IsName()
  state?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: '94105' })
  @IsOptional()
  @IsName()
  postalCode?: string | null;

  /** ISO 3166-1 alpha-2 country code in upper case. */
  @ApiProperty({ example: 'US' })
  @IsCountryCode()
  country: string;
}

/** The address as every response shows it: all six keys. */
export class AddressResponse {
  @ApiProperty({ type: String, nullable: true, example: '1 Market Street' })
  line1: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Suite 300' })
  line2: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'San Francisco' })
  city: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'CA' })
  state: string | null;

  @ApiProperty({ type: String, nullable: true, example: '94105' })
  postalCode: string | null;

  @ApiProperty({ example: 'US' })
  country: string;
}

/** A customer's `address` in a body: an object, or null for none. */
export function IsAddress(): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    IsObject(),
    ValidateNested(),
    Type(() => AddressDto),
    ApiPropertyOptional({ type: AddressDto, nullable: true }),
  );
}

/** The stored form of an address sent: every key present, null when left out. */
export function toAddress(dto: AddressDto | null | undefined): Address | null {
  if (!dto) return null;
  return {
    line1: dto.line1 ?? null,
    line2: dto.line2 ?? null,
    city: dto.city ?? null,
    state: dto.state ?? null,
    postalCode: dto.postalCode ?? null,
    country: dto.country,
  };
}
