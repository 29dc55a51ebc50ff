import { randomBytes } from 'node:crypto';
import { SealedText } from '../common/sealed-text';

/**
 * Webhook signing secrets at rest: SealedText (AES-256-GCM) under a key derived from
 * ENCRYPTION_KEY for this purpose only, with the endpoint id as associated data, so a secret
 * copied onto another row does not decrypt.
 */
export class SecretBox extends SealedText {
  constructor(encryptionKey: Buffer) {
    super(encryptionKey, 'webhook-endpoint-secrets');
  }
}

/** A new signing secret: `whsec_` and the base64 of 32 random bytes (Standard Webhooks). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
