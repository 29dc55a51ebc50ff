/**
 * The migrations of each dialect, in order. A module that changes the schema adds one class to
 * each list (see docs/development.md, "Adding a module"); one whose SQL is the same on both databases
 * lives in portable/ and goes in both lists; one that only one dialect needs (a PostgreSQL column
 * type) goes in that dialect's list alone.
 */
import { Foundation1763700000000 as SqliteFoundation } from './sqlite/1763700000000-foundation';
import { Catalog1763700001000 as SqliteCatalog } from './sqlite/1763700001000-catalog';
import { Plans1763700002000 as SqlitePlans } from './sqlite/1763700002000-plans';
import { ExternalAccounts1763700003000 as SqliteExternalAccounts } from './sqlite/1763700003000-external-accounts';
import { Idempotency1763700004000 as SqliteIdempotency } from './sqlite/1763700004000-idempotency';
import { NamedConstraints1763700005000 as SqliteNamedConstraints } from './sqlite/1763700005000-named-constraints';
import { Foundation1763700000000 as PostgresFoundation } from './postgres/1763700000000-foundation';
import { Catalog1763700001000 as PostgresCatalog } from './postgres/1763700001000-catalog';
import { Plans1763700002000 as PostgresPlans } from './postgres/1763700002000-plans';
import { ExternalAccounts1763700003000 as PostgresExternalAccounts } from './postgres/1763700003000-external-accounts';
import { Idempotency1763700004000 as PostgresIdempotency } from './postgres/1763700004000-idempotency';
import { NamedConstraints1763700005000 as PostgresNamedConstraints } from './postgres/1763700005000-named-constraints';
import { Events1763700010000 as SqliteEvents } from './sqlite/1763700010000-events';
import { Events1763700010000 as PostgresEvents } from './postgres/1763700010000-events';
import { Webhooks1763700011000 as SqliteWebhooks } from './sqlite/1763700011000-webhooks';
import { Webhooks1763700011000 as PostgresWebhooks } from './postgres/1763700011000-webhooks';
import { ListIndexes1763700006000 } from './portable/1763700006000-list-indexes';
import { PlanCounts1763700007000 } from './portable/1763700007000-plan-counts';
import { KeyedIdempotencyHashes1763700008000 } from './portable/1763700008000-keyed-idempotency-hashes';
import { ShortLast41763700009000 } from './portable/1763700009000-short-last4';
import { Modes1763700012000 } from './portable/1763700012000-modes';
import { Verification1763700013000 } from './portable/1763700013000-verification';
import { WebhookAttemptsSucceeded1763700015000 } from './portable/1763700015000-webhook-attempts-succeeded';
import { EventsSweptById1763700016000 } from './portable/1763700016000-events-swept-by-id';
import { EventsPrefixByType1763700017000 } from './portable/1763700017000-events-prefix-by-type';
import { DeliveryQueues1764000000000 } from './portable/1764000000000-delivery-queues';
import { Customers1764000200000 } from './portable/1764000200000-customers';
import { Subscriptions1764000210000 } from './portable/1764000210000-subscriptions';
import { EventsDataAsWritten1763700018000 } from './postgres/1763700018000-events-data-as-written';
import { UsageEvents1764000300000 as SqliteUsageEvents } from './sqlite/1764000300000-usage-events';
import { UsageEvents1764000300000 as PostgresUsageEvents } from './postgres/1764000300000-usage-events';
import { Invoices1764000400000 as SqliteInvoices } from './sqlite/1764000400000-invoices';
import { Invoices1764000400000 as PostgresInvoices } from './postgres/1764000400000-invoices';
import { InvoiceLateCheck1764000401000 as SqliteInvoiceLateCheck } from './sqlite/1764000401000-invoice-late-check';
import { InvoiceLateCheck1764000401000 as PostgresInvoiceLateCheck } from './postgres/1764000401000-invoice-late-check';
import { DeliveriesCascade1764000500000 as SqliteDeliveriesCascade } from './sqlite/1764000500000-deliveries-cascade';
import { DeliveriesCascade1764000500000 as PostgresDeliveriesCascade } from './postgres/1764000500000-deliveries-cascade';

export const sqliteMigrations = [
  SqliteFoundation,
  SqliteCatalog,
  SqlitePlans,
  SqliteExternalAccounts,
  SqliteIdempotency,
  SqliteNamedConstraints,
  ListIndexes1763700006000,
  PlanCounts1763700007000,
  KeyedIdempotencyHashes1763700008000,
  ShortLast41763700009000,
  SqliteEvents,
  SqliteWebhooks,
  Modes1763700012000,
  Verification1763700013000,
  WebhookAttemptsSucceeded1763700015000,
  EventsSweptById1763700016000,
  EventsPrefixByType1763700017000,
  DeliveryQueues1764000000000,
  Customers1764000200000,
  Subscriptions1764000210000,
  SqliteUsageEvents,
  SqliteInvoices,
  SqliteInvoiceLateCheck,
  SqliteDeliveriesCascade,
];
export const postgresMigrations = [
  PostgresFoundation,
  PostgresCatalog,
  PostgresPlans,
  PostgresExternalAccounts,
  PostgresIdempotency,
  PostgresNamedConstraints,
  ListIndexes1763700006000,
  PlanCounts1763700007000,
  KeyedIdempotencyHashes1763700008000,
  ShortLast41763700009000,
  PostgresEvents,
  PostgresWebhooks,
  Modes1763700012000,
  Verification1763700013000,
  WebhookAttemptsSucceeded1763700015000,
  EventsSweptById1763700016000,
  EventsPrefixByType1763700017000,
  EventsDataAsWritten1763700018000,
  DeliveryQueues1764000000000,
  Customers1764000200000,
  Subscriptions1764000210000,
  PostgresUsageEvents,
  PostgresInvoices,
  PostgresInvoiceLateCheck,
  PostgresDeliveriesCascade,
];
