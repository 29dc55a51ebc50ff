import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { AccountNumberVault } from './account-number-vault';
import { ExternalBankAccount } from './entities/external-bank-account.entity';
import { ExternalAccountsController } from './external-accounts.controller';
import { ExternalAccountsRepository } from './external-accounts.repository';
import { ExternalAccountsService } from './external-accounts.service';
import { VerificationService } from './verification/verification.service';
import { VerificationWorker } from './verification/verification.worker';
import { verifierProviders } from './verification/verifiers';

/**
 * External bank accounts (docs/api.md §5.5): bank-detail checks, encryption at rest, and their
 * verification (docs/verification.md): the verifiers, the worker that runs the automatic ones,
 * and VerificationService, which the command line uses for the operator's decisions.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ExternalBankAccount]), EventsModule],
  controllers: [ExternalAccountsController],
  providers: [
    ExternalAccountsRepository,
    ExternalAccountsService,
    AccountNumberVault,
    ...verifierProviders,
    VerificationService,
    VerificationWorker,
  ],
  exports: [VerificationService],
})
export class ExternalAccountsModule {}
