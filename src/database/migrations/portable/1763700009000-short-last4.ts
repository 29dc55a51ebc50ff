import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * last4 never shows more than half of the characters of an account number (docs/api.md §5.5): rows
 * stored before that rule kept the last four characters of a 4-7 character number, that is
 * all or most of it. The number's length needs no key: AES-GCM's ciphertext (the third part of
 * `v1:<nonce>:<ciphertext>:<tag>`, see AccountNumberVault) is exactly as long as the number.
 * Rows of 8 characters or more are left as they are; `down` cannot restore what was cut.
 */
export class ShortLast41763700009000 implements MigrationInterface {
  name = 'ShortLast41763700009000';

  async up(q: QueryRunner): Promise<void> {
    const param = q.connection.options.type === 'postgres' ? (n: number) => `$${n}` : () => '?';
    const rows = (await q.query(
      `SELECT "id", "account_number_encrypted", "last4" FROM "external_bank_accounts"
        WHERE LENGTH("last4") = 4`,
    )) as { id: string; account_number_encrypted: string; last4: string }[];
    for (const row of rows) {
      const ciphertext = row.account_number_encrypted.split(':')[2];
      if (ciphertext === undefined) continue;
      const length = Buffer.from(ciphertext, 'base64').length;
      const shown = Math.min(4, Math.floor(length / 2));
      if (shown >= row.last4.length) continue;
      await q.query(
        `UPDATE "external_bank_accounts" SET "last4" = ${param(1)} WHERE "id" = ${param(2)}`,
        [row.last4.slice(row.last4.length - shown), row.id],
      );
    }
  }

  async down(): Promise<void> {
    // Nothing to undo: the digits cut from last4 are only in the encrypted number.
  }
}
