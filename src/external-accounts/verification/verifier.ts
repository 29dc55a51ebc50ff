import { VerificationOutcome } from '../account-status';
import { ExternalBankAccount } from '../entities/external-bank-account.entity';

/**
 * Who decides whether an external bank account is real and belongs to its holder
 * (docs/verification.md). Each verifier says which accounts it handles; the first one in
 * VERIFIERS (external-accounts.module.ts) that handles an account verifies it.
 *
 * - An automatic verifier is asked by the verification worker, `delayMs` after the account was
 *   submitted, outside any transaction, and answers with the outcome. It may take its time (a
 *   call to a bank or an open-banking provider): the worker holds the account for
 *   VERIFICATION_LEASE_SECONDS, and a verifier that throws is asked again when that lease ends.
 * - A manual verifier leaves the decision to a person: the operator, through the command line.
 */
export type Verifier = AutomaticVerifier | ManualVerifier;

interface VerifierBase {
  /** A short name for logs and errors: `sandbox`, `operator`. */
  readonly name: string;
  /** True when this verifier verifies `account` (by its mode, its country, ...). */
  handles(account: ExternalBankAccount): boolean;
}

export interface AutomaticVerifier extends VerifierBase {
  readonly kind: 'automatic';
  /** How long after a create or resubmission the worker asks for the outcome. */
  delayMs(account: ExternalBankAccount): number;
  /**
   * The outcome of the account's current submission. The account number is in the row only
   * encrypted: a verifier that needs it decrypts it with AccountNumberVault, keeps it in memory
   * for the call, and never logs it.
   */
  decide(account: ExternalBankAccount): Promise<VerificationOutcome>;
}

export interface ManualVerifier extends VerifierBase {
  readonly kind: 'manual';
}

/** The multi-provider token: every verifier, in the order they are asked (VERIFIER_CLASSES). */
export const VERIFIERS = Symbol('VERIFIERS');
