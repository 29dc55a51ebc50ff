import 'reflect-metadata';
import { getMetadataArgsStorage } from 'typeorm';
import { Product } from '../catalog/entities/product.entity';
import { TimestampColumn, useDialect } from './column-types';

/** What TypeORM will build Product's `createdAt` and `metadata` columns from. */
function columnOptions(property: 'createdAt' | 'metadata') {
  const column = getMetadataArgsStorage().columns.find(
    (c) => c.target === Product && c.propertyName === property,
  );
  if (!column) throw new Error(`Product has no ${property} column`);
  return column.options;
}

describe('dialect-dependent column types', () => {
  const saved = process.env.DATABASE_URL;
  afterAll(() => {
    process.env.DATABASE_URL = saved;
    useDialect('sqlite');
  });

  it('follow the configured dialect handed to useDialect, not the environment', () => {
    // The environment names PostgreSQL; only useDialect decides.
    process.env.DATABASE_URL = 'postgres://nobody@127.0.0.1:1/none';
    useDialect('sqlite');
    expect(columnOptions('createdAt')).toMatchObject({ type: 'datetime', name: 'created_at' });
    expect(columnOptions('createdAt').precision).toBeUndefined();
    expect(columnOptions('metadata').type).toBe('simple-json');

    useDialect('postgres');
    expect(columnOptions('createdAt')).toMatchObject({
      type: 'timestamptz',
      precision: 3,
      name: 'created_at',
    });
    expect(columnOptions('metadata').type).toBe('jsonb');

    useDialect('sqlite');
    expect(columnOptions('createdAt').type).toBe('datetime');
    expect(columnOptions('createdAt').precision).toBeUndefined();
  });

  it('give an entity loaded after useDialect its types, as an entity glob loads them', () => {
    useDialect('postgres');
    class LateEntity {
      @TimestampColumn('created_at')
      createdAt: Date;
    }
    const late = getMetadataArgsStorage().columns.find(
      (c) => c.target === LateEntity && c.propertyName === 'createdAt',
    );
    expect(late?.options).toMatchObject({ type: 'timestamptz', precision: 3 });
    useDialect('sqlite');
    expect(late?.options).toMatchObject({ type: 'datetime' });
  });
});
