import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { PaginationResponse } from '../../common/dto/pagination.response';
import { IsName } from '../../common/validation/decorators';
import { IsInstant } from '../../common/validation/instant';
import { TestClock } from '../entities/test-clock.entity';

export class CreateTestClockDto {
  /** The clock's starting time (ISO 8601, UTC). */
  @ApiProperty({ example: '2027-01-01T00:00:00.000Z' })
  @IsInstant()
  frozenTime: string;

  /** A name to tell clocks apart, 1-200 characters, or null. */
  @ApiPropertyOptional({ type: String, nullable: true, example: 'Annual renewal' })
  @IsOptional()
  @IsName()
  name?: string | null;
}

export class AdvanceTestClockDto {
  /** The new time: later than the clock's and at most two years after it. */
  @ApiProperty({ example: '2027-02-01T00:00:00.000Z' })
  @IsInstant()
  frozenTime: string;
}

/** A test clock (test mode only). Every key is always present. */
export class TestClockResponse {
  @ApiProperty({ example: 'clock_01JD3Y7K2M5N8P1Q4R6S9T0VWX' })
  id: string;

  /** Always `testClock`. */
  @ApiProperty({ enum: ['testClock'], example: 'testClock' })
  object: 'testClock';

  /** Always false: clocks exist in test mode only. */
  @ApiProperty({ example: false })
  livemode: boolean;

  @ApiProperty({ type: String, nullable: true, example: 'Annual renewal' })
  name: string | null;

  /** The clock's time: what "now" is for its customers. */
  @ApiProperty({ example: '2027-01-01T00:00:00.000Z' })
  frozenTime: string;

  /** Always `ready`: an advance answers once every step it ran is done. */
  @ApiProperty({ enum: ['ready'], example: 'ready' })
  status: 'ready';

  @ApiProperty({ example: '2026-01-31T12:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ example: '2026-01-31T12:00:00.000Z' })
  updatedAt: string;
}

export class TestClockListResponse {
  /** One page of test clocks, newest first. */
  @ApiProperty({ type: [TestClockResponse] })
  data: TestClockResponse[];

  @ApiProperty({ type: PaginationResponse })
  pagination: PaginationResponse;
}

export function toTestClockResponse(clock: TestClock): TestClockResponse {
  return {
    id: clock.id,
    object: 'testClock',
    livemode: clock.livemode,
    name: clock.name,
    frozenTime: clock.frozenTime.toISOString(),
    status: 'ready',
    createdAt: clock.createdAt.toISOString(),
    updatedAt: clock.updatedAt.toISOString(),
  };
}
