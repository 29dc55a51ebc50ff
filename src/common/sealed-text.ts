import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Text kept secret at rest: AES-256-GCM (Node's crypto) under a key derived with HKDF from
 * ENCRYPTION_KEY for one purpose only (`purpose`, the HKDF label), with the id of the row that
 * holds it as associated data, so that a sealed value copied onto another row does not open.
 * Sealed as base64 of iv (12) | tag (16) | ciphertext.
 */
export class SealedText {
  private readonly key: Buffer;

  constructor(encryptionKey: Buffer, purpose: string) {
    this.key = Buffer.from(hkdfSync('sha256', encryptionKey, '', purpose, 32));
  }

  seal(text: string, rowId: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(rowId));
    const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  /** The text sealed for `rowId`; throws when it was sealed for another row or altered. */
  open(sealed: string, rowId: string): string {
    const raw = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(rowId));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([
      decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  }
}
