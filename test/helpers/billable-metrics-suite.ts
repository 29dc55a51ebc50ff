export const METRIC_KEYS = [
  'aggregation',
  'createdAt',
  'description',
  'eventType',
  'id',
  'livemode',
  'merchantId',
  'name',
  'object',
  'productId',
  'unit',
  'updatedAt',
  'valueProperty',
];
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const MISSING_METRIC = 'bm_0000000000000000000000';
export const MISSING_PRODUCT = 'prod_0000000000000000000000';
export const MALFORMED_IDS = [
  'abc',
  'bm_',
  'bm_short',
  'prod_01JD3Y7K2M5N8P1Q4R6S9T0VWX',
  `bm_${'A'.repeat(41)}`,
];

export function fieldErrors(res: { body: any }): Record<string, string> {
  return Object.fromEntries(
    (res.body.errors ?? []).map((e: { field: string; code: string }) => [e.field, e.code]),
  );
}
