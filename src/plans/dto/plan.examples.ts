/**
 * Request examples run as they are from Swagger UI's "Try it out": no merchantId (it defaults to
 * the caller's organization; another one is a 403). The ids that must name resources of your
 * own (productId, prices) are placeholders: replace them, or the 400 names the field.
 */
const PLAN = {
  name: 'Pro',
  invoiceDisplayName: 'Pro plan',
  description: 'Usage-based access to the API',
  productId: 'prod_01JD3Y2Q6J8C4N1V9W5X7Z0PRD',
  billingInterval: 'monthly',
  currency: 'USD',
  tax: { behavior: 'exclusive', code: 'txcd_10103001', rate: '8.25' },
};

export const CREATE_PLAN_EXAMPLES = {
  monthly: {
    summary: 'A monthly USD plan, no prices yet (replace productId with one of your products)',
    value: PLAN,
  },
  seed: {
    summary: "The seed's plan with one price (replace productId and the price id with yours)",
    value: { ...PLAN, prices: ['price_01JD3Y2Q6J8C4N1V9W5X7Z0PRC'] },
  },
};

const price = (model: string, properties: object) => ({
  billableMetricId: 'bm_01JD3Y2Q6J8C4N1V9W5X7Z0BMX',
  model,
  invoiceDisplayName: 'API calls',
  properties,
});

/** A price per model; billableMetricId must name one of your billable metrics (400 otherwise). */
export const CREATE_PRICE_EXAMPLES = {
  standard: {
    summary: 'A standard price: 0.25 per unit (replace billableMetricId with yours)',
    value: price('standard', { unitPrice: '0.25' }),
  },
  dynamic: {
    summary: 'A dynamic price between 0.10 and 0.50 per unit',
    value: price('dynamic', { minPrice: '0.10', maxPrice: '0.50' }),
  },
  volume: {
    summary: 'A volume price on a linear curve',
    value: price('volume', {
      default: '0.20',
      parameters: { function: 'linear', gradient: '0.001', min: '0', max: '10000' },
    }),
  },
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
  fixedFee: null,
  prices: [
    {
      id: 'price_01JD3Y2Q6J8C4N1V9W5X7Z0PRC',
      object: 'price',
      livemode: false,
      billableMetricId: 'bm_01JD3Y2Q6J8C4N1V9W5X7Z0BMX',
      model: 'standard',
      invoiceDisplayName: 'API calls',
      properties: { unitPrice: '0.25' },
      paymentTerm: 'in_arrears',
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
