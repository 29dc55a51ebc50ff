import { randomBytes } from 'node:crypto';
import { AccountNumberVault } from './account-number-vault';

const vault = new AccountNumberVault({ encryptionKey: Buffer.alloc(32, 7) });
const ID = 'eba_01JD3Y2Q6J8C4N1V9W5X7Z0ABC';

describe('AccountNumberVault', () => {
  it('round-trips an account number', () => {
    const stored = vault.encrypt('DE89370400440532013000', ID);
    expect(vault.decrypt(stored, ID)).toBe('DE89370400440532013000');
  });

  it('stores v1:<nonce>:<ciphertext>:<tag> in base64 with a 12-byte nonce and a 16-byte tag', () => {
    const [version, nonce, ciphertext, tag] = vault.encrypt('000123456789', ID).split(':');
    expect(version).toBe('v1');
    expect(Buffer.from(nonce, 'base64')).toHaveLength(12);
    expect(Buffer.from(ciphertext, 'base64')).toHaveLength('000123456789'.length);
    expect(Buffer.from(tag, 'base64')).toHaveLength(16);
  });

  it('uses a fresh nonce for every value, so equal numbers give different ciphertexts', () => {
    const a = vault.encrypt('000123456789', ID);
    const b = vault.encrypt('000123456789', ID);
    expect(a).not.toBe(b);
    expect(a.split(':')[1]).not.toBe(b.split(':')[1]);
  });

  it('never contains the plaintext', () => {
    const stored = vault.encrypt('000123456789', ID);
    expect(stored).not.toContain('000123456789');
    expect(Buffer.from(stored.split(':')[2], 'base64').toString('utf8')).not.toBe('000123456789');
  });

  it('refuses a tampered ciphertext or tag', () => {
    const [v, n, c, t] = vault.encrypt('000123456789', ID).split(':');
    const flipped = Buffer.from(c, 'base64');
    flipped[0] ^= 1;
    expect(() => vault.decrypt([v, n, flipped.toString('base64'), t].join(':'), ID)).toThrow();
    const tag = Buffer.from(t, 'base64');
    tag[0] ^= 1;
    expect(() => vault.decrypt([v, n, c, tag.toString('base64')].join(':'), ID)).toThrow();
  });

  it('refuses a ciphertext copied onto another account', () => {
    const stored = vault.encrypt('000123456789', ID);
    expect(() => vault.decrypt(stored, 'eba_01JD3Y2Q6J8C4N1V9W5X7Z0XYZ')).toThrow();
  });

  it('refuses a ciphertext made under another key', () => {
    const other = new AccountNumberVault({ encryptionKey: randomBytes(32) });
    expect(() => vault.decrypt(other.encrypt('000123456789', ID), ID)).toThrow();
  });

  it('refuses an unknown format version', () => {
    const stored = vault.encrypt('000123456789', ID).replace(/^v1:/, 'v9:');
    expect(() => vault.decrypt(stored, ID)).toThrow(/format/);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => new AccountNumberVault({ encryptionKey: Buffer.alloc(16) })).toThrow();
  });

  describe('fingerprint', () => {
    it('is deterministic: the same details give the same fingerprint', () => {
      expect(vault.fingerprint('US', '110000000', '000123456789')).toBe(
        vault.fingerprint('US', '110000000', '000123456789'),
      );
    });

    it.each([
      ['another country', ['CA', '110000000', '000123456789']],
      ['another routing number', ['US', '021000021', '000123456789']],
      ['another account number', ['US', '110000000', '000123456788']],
      ['fields shifted across the separator', ['US', '1100000000', '00123456789']],
    ])('differs for %s', (_label, details) => {
      const [c, r, a] = details;
      expect(vault.fingerprint(c, r, a)).not.toBe(
        vault.fingerprint('US', '110000000', '000123456789'),
      );
    });

    it('is a keyed hash: another key gives another fingerprint, and it is not a plain SHA-256', () => {
      const other = new AccountNumberVault({ encryptionKey: Buffer.alloc(32, 8) });
      const fp = vault.fingerprint('US', '110000000', '000123456789');
      expect(other.fingerprint('US', '110000000', '000123456789')).not.toBe(fp);
      expect(fp).toMatch(/^[0-9a-f]{64}$/);
      expect(fp).not.toContain('000123456789');
    });
  });
});
