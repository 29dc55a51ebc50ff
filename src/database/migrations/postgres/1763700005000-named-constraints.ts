import { MigrationInterface } from 'typeorm';

/**
 * Nothing to change on PostgreSQL. Its inline foreign keys and CHECKs already carry names
 * (`<table>_<column>_fkey`, `<table>_<column>_check`), and the entities declare those names; the
 * SQLite migration of the same number gives SQLite's constraints the same names. It exists so the
 * two dialects keep the same list of migrations.
 */
export class NamedConstraints1763700005000 implements MigrationInterface {
  name = 'NamedConstraints1763700005000';

  async up(): Promise<void> {}

  async down(): Promise<void> {}
}
