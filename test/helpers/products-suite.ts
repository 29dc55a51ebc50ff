export const PRODUCT_KEYS = [
  'createdAt',
  'description',
  'id',
  'livemode',
  'merchantId',
  'metadata',
  'name',
  'object',
  'updatedAt',
];
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const MISSING_PRODUCT = 'prod_0000000000000000000000';
export const MALFORMED_IDS = [
  'abc',
  'prod_',
  'prod_short',
  'bm_01JD3YB3C6D9F2G5H8J1K4M7NP',
  `prod_${'A'.repeat(41)}`,
];

/** `count` metadata entries named k0, k1, ... */
export function manyKeys(
  count: number,
  value: string | number | null = 1,
): Record<string, unknown> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, value]));
}

export function fieldErrors(res: { body: any }): Record<string, string> {
  return Object.fromEntries(
    (res.body.errors ?? []).map((e: { field: string; code: string }) => [e.field, e.code]),
  );
}
