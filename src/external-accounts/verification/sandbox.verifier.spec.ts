import { AppConfig } from '../../config/app-config';
import { AccountNumberVault } from '../account-number-vault';
import { ExternalBankAccount } from '../entities/external-bank-account.entity';
import { SandboxVerifier, sandboxOutcome } from './sandbox.verifier';

describe('sandboxOutcome (docs/api.md §5.5)', () => {
  it.each([
    ['000123451116', { status: 'errored', reason: 'no_account' }],
    ['000123451113', { status: 'errored', reason: 'account_closed' }],
    ['000123452227', { status: 'errored', reason: 'invalid_account_holder' }],
    ['1116', { status: 'errored', reason: 'no_account' }],
    ['DE89370400440532011113', { status: 'errored', reason: 'account_closed' }],
    ['000123456789', { status: 'verified' }],
    ['000123451115', { status: 'verified' }],
    ['000111600000', { status: 'verified' }],
    ['000122271', { status: 'verified' }],
    ['GB33BUKB20201555552227', { status: 'errored', reason: 'invalid_account_holder' }],
  ])('%s -> %j', (number, outcome) => {
    expect(sandboxOutcome(number)).toEqual(outcome);
  });
});

describe('SandboxVerifier', () => {
  const vault = new AccountNumberVault({ encryptionKey: Buffer.alloc(32, 7) });
  const config = { verification: { sandboxDelayMs: 1234 } } as AppConfig;
  const verifier = new SandboxVerifier(vault, config);
  const account = (number: string, livemode = false) => {
    const id = 'eba_01JD3Y2Q6J8C4N1V9W5X7Z0ABC';
    return {
      id,
      livemode,
      accountNumberEncrypted: vault.encrypt(number, id),
    } as ExternalBankAccount;
  };

  it('handles test-mode accounts only', () => {
    expect(verifier.handles(account('000123456789'))).toBe(true);
    expect(verifier.handles(account('000123456789', true))).toBe(false);
  });

  it('decides after SANDBOX_VERIFICATION_DELAY_MS', () => {
    expect(verifier.delayMs()).toBe(1234);
  });

  it('decides by the decrypted number', async () => {
    await expect(verifier.decide(account('000123451113'))).resolves.toEqual({
      status: 'errored',
      reason: 'account_closed',
    });
    await expect(verifier.decide(account('000123456789'))).resolves.toEqual({
      status: 'verified',
    });
  });
});
