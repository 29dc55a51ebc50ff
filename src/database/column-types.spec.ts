import 'reflect-metadata';
import { getMetadataArgsStorage } from 'typeorm';
import { Product } from '../catalog/entities/product.entity';
import { useDialect } from './column-types';

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
});
