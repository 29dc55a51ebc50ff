import { lockedUpdate, sameValue } from './locked-update';
import { etagOf } from '../common/etag';

interface Row {
  id: string;
  name: string;
  metadata: Record<string, unknown>;
  updatedAt: Date;
}

const row = (): Row => ({
  id: 'x_1',
  name: 'old',
  metadata: { a: 1, b: 'two' },
  updatedAt: new Date('2026-01-01T00:00:00.000Z'),
});

function run(changes: Partial<Row>, options: { ifMatch?: string; found?: boolean } = {}) {
  const writes: Partial<Row>[] = [];
  const result = lockedUpdate<Row, Row>({
    load: () => Promise.resolve(options.found === false ? null : row()),
    notFound: () => new Error('not found'),
    view: (r) => r,
    ifMatch: options.ifMatch,
    changes: () => changes,
    write: (_, changed) => {
      writes.push(changed);
      return Promise.resolve();
    },
  });
  return { result, writes };
}

describe('lockedUpdate', () => {
  it('writes only the fields that change, with a new updatedAt', async () => {
    const { result, writes } = run({ name: 'new', metadata: { b: 'two', a: 1 } });
    const view = await result;
    expect(writes).toHaveLength(1);
    expect(Object.keys(writes[0]).sort()).toEqual(['name', 'updatedAt']);
    expect(view.name).toBe('new');
    expect(view.updatedAt.getTime()).toBeGreaterThan(row().updatedAt.getTime());
  });

  it('writes nothing and keeps updatedAt when nothing changes', async () => {
    const { result, writes } = run({ name: 'old', metadata: { b: 'two', a: 1 } });
    expect(await result).toEqual(row());
    expect(writes).toHaveLength(0);
  });

  it('leaves out fields that are undefined (not asked for)', async () => {
    const { result, writes } = run({ name: undefined });
    await result;
    expect(writes).toHaveLength(0);
  });

  it('answers 412 on a stale If-Match before computing changes, and accepts the current ETag', async () => {
    await expect(run({ name: 'new' }, { ifMatch: '"stale"' }).result).rejects.toMatchObject({
      category: 'precondition_failed',
    });
    const { result, writes } = run({ name: 'new' }, { ifMatch: etagOf(row()) });
    await result;
    expect(writes).toHaveLength(1);
  });

  it('throws the not-found error when the row is not there', async () => {
    await expect(run({ name: 'new' }, { found: false }).result).rejects.toThrow('not found');
  });
});

describe('sameValue', () => {
  it('compares plain objects key by key in any order, nested too', () => {
    expect(sameValue({ a: 1, b: { c: '2' } }, { b: { c: '2' }, a: 1 })).toBe(true);
    expect(sameValue({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameValue({ a: 1 }, { a: '1' })).toBe(false);
  });

  it('compares dates by instant and everything else by identity', () => {
    expect(sameValue(new Date(5), new Date(5))).toBe(true);
    expect(sameValue(null, null)).toBe(true);
    expect(sameValue(null, 'x')).toBe(false);
    expect(sameValue([1], [1])).toBe(false);
  });
});
