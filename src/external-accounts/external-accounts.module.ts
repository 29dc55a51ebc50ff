import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { AccountNumberVault } from './account-number-vault';
import { ExternalBankAccount } from './entities/external-bank-account.entity';
import { ExternalAccountsController } from './external-accounts.controller';
import { ExternalAccountsRepository } from './external-accounts.repository';
import { ExternalAccountsService } from './external-accounts.service';

/** External bank accounts (docs/api.md §5.5): bank-detail checks, encryption at rest, status. */
@Module({
  imports: [TypeOrmModule.forFeature([ExternalBankAccount]), EventsModule],
  controllers: [ExternalAccountsController],
  providers: [ExternalAccountsRepository, ExternalAccountsService, AccountNumberVault],
})
export class ExternalAccountsModule {}
