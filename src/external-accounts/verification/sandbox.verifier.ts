import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { VerificationOutcome } from '../account-status';
import { AccountNumberVault } from '../account-number-vault';
import { ExternalBankAccount } from '../entities/external-bank-account.entity';
import { AutomaticVerifier } from './verifier';

/**
 * The outcomes test mode simulates, by the last four characters of the account number
 * (docs/api.md §5.5); anything else is verified.
 */
export const SANDBOX_OUTCOMES: Readonly<Record<string, VerificationOutcome>> = {
  '1116': { status: 'errored', reason: 'no_account' },
  '1113': { status: 'errored', reason: 'account_closed' },
  '2227': { status: 'errored', reason: 'invalid_account_holder' },
};

/** The sandbox's outcome for an account number. */
export function sandboxOutcome(accountNumber: string): VerificationOutcome {
  return SANDBOX_OUTCOMES[accountNumber.slice(-4)] ?? { status: 'verified' };
}

/**
 * Test mode's bank (docs/verification.md): decides every test-mode account by the last four
 * characters of its number, SANDBOX_VERIFICATION_DELAY_MS after it was created or resubmitted.
 * The number is decrypted in memory for the lookup and goes nowhere else.
 */
@Injectable()
export class SandboxVerifier implements AutomaticVerifier {
  readonly kind = 'automatic';
  readonly name = 'sandbox';

  constructor(
    private readonly vault: AccountNumberVault,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  handles(account: ExternalBankAccount): boolean {
    return !account.livemode;
  }

  delayMs(): number {
    return this.config.verification.sandboxDelayMs;
  }

  decide(account: ExternalBankAccount): Promise<VerificationOutcome> {
    return Promise.resolve(
      sandboxOutcome(this.vault.decrypt(account.accountNumberEncrypted, account.id)),
    );
  }
}
