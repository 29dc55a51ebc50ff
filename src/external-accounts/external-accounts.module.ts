import { Module, Type } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { AccountNumberVault } from './account-number-vault';
import { ExternalBankAccount } from './entities/external-bank-account.entity';
import { ExternalAccountsController } from './external-accounts.controller';
import { ExternalAccountsRepository } from './external-accounts.repository';
import { ExternalAccountsService } from './external-accounts.service';
import { VerificationService } from './verification/verification.service';
import { VerificationWorker } from './verification/verification.worker';
import { OperatorVerifier } from './verification/operator.verifier';
import { SandboxVerifier } from './verification/sandbox.verifier';
import { VERIFIERS, Verifier } from './verification/verifier';

/**
 * Every verifier, in the order they are asked which accounts they handle (VERIFIERS): the first
 * that handles an account verifies it. A new provider (an open-banking or micro-deposit service)
 * is a class in verification/ that implements Verifier, and one line here: before
 * OperatorVerifier to take live accounts from the operator.
 */
const VERIFIER_CLASSES: Type<Verifier>[] = [SandboxVerifier, OperatorVerifier];

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
    ...VERIFIER_CLASSES,
    { provide: VERIFIERS, inject: VERIFIER_CLASSES, useFactory: (...all: Verifier[]) => all },
    VerificationService,
    VerificationWorker,
  ],
  exports: [VerificationService],
})
export class ExternalAccountsModule {}
