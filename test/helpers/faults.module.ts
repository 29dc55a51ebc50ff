import { Body, Controller, Get, Module, Post } from '@nestjs/common';
import { IsInt, IsOptional, Max, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { ConflictError } from '../../src/common/errors';
import { IsDecimalString, IsName } from '../../src/common/validation/decorators';
import { Database } from '../../src/database/database';
import { Idempotent } from '../../src/platform/idempotency/idempotent.decorator';

class NestedDto {
  @IsDecimalString()
  rate: string;
}

class EchoDto {
  @IsName()
  name: string;

  @IsOptional()
  @IsInt()
  @Max(10)
  count?: number;

  @IsOptional()
  @ValidateNested()
  @Type(() => NestedDto)
  tax?: NestedDto;
}

/** Routes that fail on purpose, so each error source of the envelope can be tested end to end. */
@Controller('v0/test-faults')
class FaultsController {
  constructor(private readonly db: Database) {}

  @Post('echo')
  @Idempotent()
  echo(@Body() body: EchoDto) {
    return body;
  }

  @Get('domain')
  domain() {
    throw new ConflictError('PRICE_IN_USE', 'price_123 is already in plan plan_456');
  }

  @Get('database')
  async database() {
    return this.db.read((m) => m.query('SELECT secret_column FROM no_such_table'));
  }

  @Get('crash')
  crash() {
    throw new Error('boom with sk_live_00000000000000000000000000000000 inside');
  }
}

@Module({ controllers: [FaultsController] })
export class FaultsModule {}
