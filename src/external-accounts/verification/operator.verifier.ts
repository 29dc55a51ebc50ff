import { Injectable } from '@nestjs/common';
import { ExternalBankAccount } from '../entities/external-bank-account.entity';
import { ManualVerifier } from './verifier';

/**
 * Live mode: this service has no connection to a bank, so a person decides. The operator lists
 * the accounts waiting and verifies or rejects each through the command line
 * (`external-accounts:pending|verify|reject`, docs/verification.md). Nothing is decided
 * automatically.
 */
@Injectable()
export class OperatorVerifier implements ManualVerifier {
  readonly kind = 'manual';
  readonly name = 'operator';

  handles(account: ExternalBankAccount): boolean {
    return account.livemode;
  }
}
