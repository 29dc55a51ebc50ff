import { ApiProperty } from '@nestjs/swagger';
import { PaginationResponse } from '../../common/dto/pagination.response';
import { Metadata, sortedMetadata } from '../../common/metadata';
import { Customer } from '../entities/customer.entity';
import { AddressResponse } from './address.dto';
import { metadataSchema } from './metadata.doc';

/** A customer: who a merchant bills. Every key is always present. */
export class CustomerResponse {
  @ApiProperty({ example: 'cus_01JD3Y7K2M5N8P1Q4R6S9T0VWX' })
  id: string;

  /** Always `customer`. */
  @ApiProperty({ enum: ['customer'], example: 'customer' })
  object: 'customer';

  /** True in live mode, false in test mode. */
  @ApiProperty({ example: false })
  livemode: boolean;

  /** The organization that bills the customer. */
  @ApiProperty({ example: 'org_01JD3Y2Q6J8C4N1V9W5X7Z0ABC' })
  merchantId: string;

  @ApiProperty({ example: 'Jane Cooper' })
  name: string;

  @ApiProperty({ example: 'jane@example.com' })
  email: string;

  /** Your own id for the customer, or null. */
  @ApiProperty({ type: String, nullable: true, example: 'crm-4711' })
  externalId: string | null;

  @ApiProperty({ type: AddressResponse, nullable: true })
  address: AddressResponse | null;

  @ApiProperty({ type: String, nullable: true, example: 'DE123456789' })
  taxId: string | null;

  /** The test clock the customer lives on (test mode), or null for real time. */
  @ApiProperty({ type: String, nullable: true, example: null })
  testClockId: string | null;

  /** Key-value pairs of your own; `{}` when there are none. Keys come back sorted. */
  @ApiProperty(metadataSchema())
  metadata: Metadata;

  @ApiProperty({ example: '2026-01-31T12:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ example: '2026-01-31T12:00:00.000Z' })
  updatedAt: string;
}

export class CustomerListResponse {
  /** One page of customers, newest first. */
  @ApiProperty({ type: [CustomerResponse] })
  data: CustomerResponse[];

  @ApiProperty({ type: PaginationResponse })
  pagination: PaginationResponse;
}

/** The answer of a DELETE (docs/api.md §5.8, §5.9). */
export class DeletedResponse {
  @ApiProperty({ example: 'cus_01JD3Y7K2M5N8P1Q4R6S9T0VWX' })
  id: string;

  @ApiProperty({ example: 'customer' })
  object: string;

  @ApiProperty({ enum: [true], example: true })
  deleted: true;
}

export function toCustomerResponse(customer: Customer): CustomerResponse {
  return {
    id: customer.id,
    object: 'customer',
    livemode: customer.livemode,
    merchantId: customer.organizationId,
    name: customer.name,
    email: customer.email,
    externalId: customer.externalId,
    address: customer.address,
    taxId: customer.taxId,
    testClockId: customer.testClockId,
    metadata: sortedMetadata(customer.metadata),
    createdAt: customer.createdAt.toISOString(),
    updatedAt: customer.updatedAt.toISOString(),
  };
}
