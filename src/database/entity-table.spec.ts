import 'reflect-metadata';
import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';
import { EntityTable } from './entity-table';

@Entity({ name: 'samples' })
class Sample {
  @PrimaryColumn({ type: 'varchar', length: 48 })
  id: string;

  @Column({ type: 'integer', nullable: true })
  position: number | null;

  @Column({ type: 'simple-json' })
  properties: Record<string, unknown>;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt: Date;

  @Column({ name: 'deleted_at', type: 'datetime', nullable: true })
  deletedAt: Date | null;
}

describe('EntityTable (SQLite)', () => {
  let dataSource: DataSource;
  let table: EntityTable<Sample>;

  beforeAll(async () => {
    dataSource = new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: [Sample],
    });
    await dataSource.initialize();
    await dataSource.query(
      'CREATE TABLE "samples" ("id" varchar(48) PRIMARY KEY, "position" integer, ' +
        '"properties" text NOT NULL, "created_at" datetime NOT NULL, "deleted_at" datetime)',
    );
    table = new EntityTable(dataSource, 'sqlite', Sample);
  });
  afterAll(() => dataSource.destroy());

  /** What TypeORM's driver makes of the same row. */
  const viaDriver = (row: Record<string, unknown>) =>
    Object.fromEntries(
      dataSource
        .getMetadata(Sample)
        .columns.map((c) => [
          c.propertyName,
          dataSource.driver.prepareHydratedValue(row[c.databaseName], c),
        ]),
    );

  it.each([
    [
      'TypeORM datetime text and JSON text',
      { created_at: '2026-01-31 12:00:00.123', properties: '{"unitPrice":"0.25"}', position: 2 },
    ],
    ['nulls', { created_at: '2026-01-31 12:00:00.000', deleted_at: null, position: null }],
    ['datetime text in another format', { created_at: '2026-01-31T12:00:00Z', properties: '{}' }],
  ])('reads %s as the driver does', (_label, values) => {
    const row = { id: 's_1', properties: '[]', deleted_at: null, ...values };
    expect(table.fromRow(row)).toEqual(viaDriver(row));
  });

  it('round-trips through insertSql', async () => {
    const sample: Sample = {
      id: 's_2',
      position: 1,
      properties: { a: '1' },
      createdAt: new Date('2026-01-31T12:00:00.123Z'),
      deletedAt: null,
    };
    await dataSource.query(table.insertSql, table.values(sample));
    const [row] = await dataSource.query<Record<string, unknown>[]>(
      `SELECT ${table.columnList('s')} FROM ${table.name} "s" WHERE "id" = ?`,
      ['s_2'],
    );
    expect(table.fromRow(row)).toEqual(sample);
  });
});
