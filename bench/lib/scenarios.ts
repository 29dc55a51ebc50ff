/** What the load sends: one request generator per scenario. */

export type ScenarioName = 'createPlan' | 'getPlan' | 'listPlans' | 'patchAccount' | 'healthz';

export interface Scenario {
  name: ScenarioName;
  /** As the report shows it. */
  title: string;
  /** The status every response must have; anything else is counted as an error. */
  status: number;
}

/** In the order they run: the creates last, so the reads see the table as it was seeded. */
export const SCENARIOS: Scenario[] = [
  { name: 'healthz', title: 'GET /healthz (no auth, no database)', status: 200 },
  { name: 'getPlan', title: 'GET /v0/plans/{id}', status: 200 },
  { name: 'listPlans', title: 'GET /v0/plans?limit=10', status: 200 },
  { name: 'patchAccount', title: 'PATCH /v0/externalAccounts/{id} (metadata)', status: 200 },
  { name: 'createPlan', title: 'POST /v0/plans (3 prices)', status: 201 },
];

export interface BenchRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface ScenarioData {
  apiKey: string;
  organizationId?: string;
  productId?: string;
  /** Plans to read, in turn. */
  planIds: string[];
  /** Accounts to update, in turn. */
  accountIds: string[];
  /** Free prices, three per create; each triple is used once. */
  triples: string[][];
}

/**
 * Request generators: every call gives the next request. Reads and updates go round the seeded
 * ids; each create takes the next unused triple of free prices. Past the last one the triples
 * are used again (and answer 409, counted as errors).
 */
export function scenarioRequests(data: ScenarioData): Record<ScenarioName, () => BenchRequest> {
  const auth = { authorization: `Bearer ${data.apiKey}` };
  const json = { ...auth, 'content-type': 'application/json' };
  let plan = 0;
  let account = 0;
  let patch = 0;
  let triple = 0;
  return {
    healthz: () => ({ method: 'GET', path: '/healthz', headers: {} }),
    getPlan: () => ({
      method: 'GET',
      path: `/v0/plans/${data.planIds[plan++ % data.planIds.length]}`,
      headers: auth,
    }),
    listPlans: () => ({ method: 'GET', path: '/v0/plans?limit=10', headers: auth }),
    patchAccount: () => ({
      method: 'PATCH',
      path: `/v0/externalAccounts/${data.accountIds[account++ % data.accountIds.length]}`,
      headers: json,
      // A new value every time, so every PATCH writes.
      body: JSON.stringify({ metadata: { lastSync: String(++patch) } }),
    }),
    createPlan: () => {
      const prices = data.triples[triple++ % data.triples.length];
      return {
        method: 'POST',
        path: '/v0/plans',
        headers: json,
        body: JSON.stringify({
          name: 'Pro',
          invoiceDisplayName: 'Pro plan',
          description: 'Usage-based access to the API',
          merchantId: data.organizationId,
          productId: data.productId,
          billingInterval: 'monthly',
          currency: 'USD',
          tax: { behavior: 'exclusive', code: 'txcd_10103001', rate: '8.25' },
          prices,
        }),
      };
    },
  };
}
