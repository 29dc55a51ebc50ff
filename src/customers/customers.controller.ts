import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller } from '../events/caller';
import { ApiCommonResponses, ApiForbiddenMerchant, ApiNotFound } from '../platform/api-docs';
import { Created } from '../platform/created.decorator';
import { IfMatch } from '../platform/etag';
import { Idempotent } from '../platform/idempotency/idempotent.decorator';
import {
  ApiCreateCustomer,
  ApiCustomerCreateBadRequest,
  ApiDeleteCustomerErrors,
  ApiUpdateCustomerErrors,
} from './customers.api-docs';
import { CustomersService } from './customers.service';
import { CreateCustomerDto } from './dto/create-customer.dto';
import { CustomerListResponse, CustomerResponse, DeletedResponse } from './dto/customer.response';
import { ListCustomersQueryDto } from './dto/list-customers-query.dto';
import { UpdateCustomerDto } from './dto/update-customer.dto';

/** Customers (docs/api.md §5.8). */
@ApiTags('Customers')
@ApiCommonResponses()
@Controller('v0/customers')
export class CustomersController {
  constructor(private readonly customers: CustomersService) {}

  /** Create a customer */
  @Post()
  @Created(CustomerResponse, { description: 'The new customer' })
  @Idempotent()
  @ApiCreateCustomer()
  @ApiCustomerCreateBadRequest()
  @ApiForbiddenMerchant()
  create(@CurrentCaller() caller: Caller, @Body() body: CreateCustomerDto) {
    return this.customers.create(caller, body);
  }

  /** List customers, newest first */
  @Get()
  @ApiOkResponse({ type: CustomerListResponse, description: 'One page of customers' })
  list(@CurrentCaller() caller: Caller, @Query() query: ListCustomersQueryDto) {
    return this.customers.list(caller.principal, query);
  }

  /** Retrieve a customer */
  @Get(':id')
  @ApiOkResponse({ type: CustomerResponse, description: 'The customer' })
  @ApiNotFound('customer')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.customers.get(caller.principal, id);
  }

  /**
   * Update a customer
   *
   * @remarks Metadata is merged key by key (null removes a key); an address replaces the whole address.
   */
  @Patch(':id')
  @Idempotent()
  @ApiOkResponse({ type: CustomerResponse, description: 'The updated customer' })
  @ApiNotFound('customer')
  @ApiUpdateCustomerErrors()
  update(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() body: UpdateCustomerDto,
    @IfMatch() ifMatch?: string,
  ) {
    return this.customers.update(caller, id, body, ifMatch);
  }

  /** Delete a customer without active or pending subscriptions */
  @Delete(':id')
  @Idempotent()
  @ApiOkResponse({ type: DeletedResponse, description: 'The customer was deleted' })
  @ApiNotFound('customer')
  @ApiDeleteCustomerErrors()
  remove(@CurrentCaller() caller: Caller, @Param('id') id: string, @IfMatch() ifMatch?: string) {
    return this.customers.remove(caller, id, ifMatch);
  }
}
