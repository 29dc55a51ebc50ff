import { Inject, Injectable } from '@nestjs/common';
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { APP_CONFIG, AppConfig } from '../config/app-config';

const VERSION = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** HKDF label of the fingerprint key: a key of its own, never the encryption key itself. */
const FINGERPRINT_INFO = 'billing-api external-bank-account fingerprint v1';

/**
 * Keeps account numbers secret at rest.
 *
 * - `encrypt`: AES-256-GCM under ENCRYPTION_KEY with a fresh random 12-byte nonce per value and
 *   the account id as associated data (a ciphertext copied onto another row does not decrypt).
 *   Stored as `v1:<nonce>:<ciphertext>:<tag>` in base64, so a later key can be `v2`.
 * - `fingerprint`: HMAC-SHA256 of country, routing number and account number under a key derived
 *   from ENCRYPTION_KEY with HKDF. It finds duplicates without decrypting; without the key it
 *   cannot be reversed by trying every account number (a plain hash could be).
 */
@Injectable()
export class AccountNumberVault {
  private readonly encryptionKey: Buffer;
  private readonly fingerprintKey: Buffer;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'encryptionKey'>) {
    if (config.encryptionKey.length !== 32) {
      throw new Error('The encryption key must be 32 bytes');
    }
    this.encryptionKey = config.encryptionKey;
    this.fingerprintKey = Buffer.from(
      hkdfSync('sha256', config.encryptionKey, Buffer.alloc(0), FINGERPRINT_INFO, 32),
    );
  }

  encrypt(plaintext: string, accountId: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.encryptionKey, nonce);
    cipher.setAAD(Buffer.from(accountId, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [VERSION, ...[nonce, ciphertext, tag].map((b) => b.toString('base64'))].join(':');
  }

  decrypt(stored: string, accountId: string): string {
    const [version, nonce, ciphertext, tag, ...rest] = stored.split(':');
    if (version !== VERSION || rest.length > 0 || !nonce || !ciphertext || !tag) {
      throw new Error('Unknown account number ciphertext format');
    }
    const decipher = createDecipheriv(
      'aes-256-gcm',
      this.encryptionKey,
      Buffer.from(nonce, 'base64'),
      { authTagLength: TAG_BYTES },
    );
    decipher.setAAD(Buffer.from(accountId, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([
      decipher.update(Buffer.from(ciphertext, 'base64')),
      decipher.final(),
    ]).toString('utf8');
  }

  /** Hex HMAC of the canonical bank details; equal details give equal fingerprints. */
  fingerprint(countryCode: string, routingNumber: string, accountNumber: string): string {
    return createHmac('sha256', this.fingerprintKey)
      .update([countryCode, routingNumber, accountNumber].join('\n'))
      .digest('hex');
  }
}
