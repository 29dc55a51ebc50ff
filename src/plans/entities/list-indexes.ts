import { Index } from 'typeorm';

/**
 * The indexes of one list filter and its ordering (migration 1763700006000): `<name>_created`, a
 * full one for includeDeleted=true, and `<name>_live`, a partial one for live rows.
 */
export function ListIndexes(name: string, filters: string[]): ClassDecorator {
  const columns = ['organizationId', 'livemode', ...filters, 'createdAt', 'id'];
  return (target) => {
    Index(`${name}_created`, columns)(target);
    Index(`${name}_live`, columns, { where: '"deleted_at" IS NULL' })(target);
  };
}
