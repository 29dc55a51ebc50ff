import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { ClockService } from './clock.service';
import { CustomersController } from './customers.controller';
import { CustomersRepository } from './customers.repository';
import { CustomersService } from './customers.service';
import { Customer } from './entities/customer.entity';
import { TestClock } from './entities/test-clock.entity';
import { TestClocksController } from './test-clocks.controller';
import { TestClocksRepository } from './test-clocks.repository';
import { TestClocksService } from './test-clocks.service';

/**
 * Customers and test clocks (docs/api.md §5.8, §5.9). Exports, all from customers.service.ts:
 * CustomersService (`resolve`/`resolveMany` a customer named in a body, `lockForSubscription`,
 * `countSubscriptions`), ClockService (`now` for a customer) and TestClocksService (an
 * advance's lock and moves).
 */
@Module({
  imports: [TypeOrmModule.forFeature([Customer, TestClock]), EventsModule],
  controllers: [CustomersController, TestClocksController],
  providers: [
    CustomersRepository,
    TestClocksRepository,
    CustomersService,
    ClockService,
    TestClocksService,
  ],
  exports: [CustomersService, ClockService, TestClocksService],
})
export class CustomersModule {}
