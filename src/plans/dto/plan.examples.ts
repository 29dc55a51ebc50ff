/** The seed's sample (section 4.1): a monthly USD plan with one standard price. */
export const CREATE_PLAN_EXAMPLE = {
  name: 'Pro',
  invoiceDisplayName: 'Pro plan',
  description: 'Usage-based access to the API',
  merchantId: 'org_01JD3Y2Q6J8C4N1V9W5X7Z0ORG',
  productId: 'prod_01JD3Y2Q6J8C4N1V9W5X7Z0PRD',
  billingInterval: 'monthly',
  currency: 'USD',
  tax: { behavior: 'exclusive', code: 'txcd_10103001', rate: '8.25' },
  prices: ['price_01JD3Y2Q6J8C4N1V9W5X7Z0PRC'],
};

export const PLAN_EXAMPLE = {
  id: 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0PLN',
  object: 'plan',
  livemode: false,
  name: 'Pro',
  invoiceDisplayName: 'Pro plan',
  description: 'Usage-based access to the API',
  billingInterval: 'monthly',
  currency: 'USD',
  merchantId: 'org_01JD3Y2Q6J8C4N1V9W5X7Z0ORG',
  productId: 'prod_01JD3Y2Q6J8C4N1V9W5X7Z0PRD',
  tax: { behavior: 'exclusive', code: 'txcd_10103001', rate: '8.25' },
  prices: [
    {
      id: 'price_01JD3Y2Q6J8C4N1V9W5X7Z0PRC',
      object: 'price',
      livemode: false,
      billableMetricId: 'bm_01JD3Y2Q6J8C4N1V9W5X7Z0BMX',
      model: 'standard',
      invoiceDisplayName: 'API calls',
      properties: { unitPrice: '0.25' },
      planId: 'plan_01JD3Y2Q6J8C4N1V9W5X7Z0PLN',
      createdAt: '2026-01-31T12:00:00.000Z',
      updatedAt: '2026-01-31T12:00:01.000Z',
      deletedAt: null,
    },
  ],
  createdAt: '2026-01-31T12:00:01.000Z',
  updatedAt: '2026-01-31T12:00:01.000Z',
  deletedAt: null,
};
