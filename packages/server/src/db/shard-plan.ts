/**
 * The shard-key plan: for every collection of the service, the key it is sharded on in a MongoDB cluster (or
 * `unsharded`), one source in code. docs/scaling.md is rendered from it (`pnpm --filter @billing/server
 * docs:scaling`), the start-up check (db/sharding.ts) refuses a cluster sharded against it, and
 * test/shard-plan.test.ts checks it against the indexes the repositories declare and the query shapes the whole
 * suite sends (docs/indexes.md, written by `pnpm check:indexes`).
 */

import type { ShardKey } from "./shard-routing.js";
import { SCATTERS } from "./shard-scatters.js";

export interface ShardPlanEntry {
  /** The repository that owns the collection (src/repositories/<name>.ts). */
  repository: string;
  key: ShardKey | "unsharded";
  /**
   * Grows with one account's customers, contracts, events, invoices or ledger: its key must split an account
   * (`accountId` then a field of many values), or leave the account out (`_id` hashed), never `accountId` alone.
   */
  tenant: boolean;
  /** What decides the collection's races (a unique index, or its `_id`), and why the key keeps it exact. */
  race: string;
  /** Lookups by `_id` go through db/find-owned.ts: on a sharded cluster they carry `accountId` too. */
  ownedLookups?: true;
  /** Lookups by `_id` go through `routedById` (db/find-owned.ts): on a sharded cluster they carry the key's fields. */
  routedLookups?: true;
  /**
   * Shapes of reads of one document by `_id` that read its `_id`-keyed pointer first on a sharded cluster, which names
   * the key's fields: the read then carries them (db/id-pointers.ts; invoices' `invoiceContracts`, grants'
   * `creditGrantCustomers`).
   */
  pointedLookups?: string[];
  /**
   * Writes by `_id` (update, findAndModify) name the document by a ref its writer read (repositories/invoice-refs.ts):
   * on a sharded cluster they carry the key's fields, elsewhere `_id` alone (FerretDB's one fast filter).
   */
  routedWrites?: true;
  /**
   * Not split yet: the key the collection has until a unique index that the split key cannot prefix moves into an
   * `_id`-keyed claim collection (what is left, and why, in `pending`). The table's `key` is the target.
   */
  pending?: { until: ShardKey; why: string };
  /** Keys of an earlier plan a cluster may still have: the start-up check accepts them (races stay exact). */
  accepts?: ShardKey[];
}

const A: [string, 1] = ["accountId", 1];
const ID_HASHED: ShardKey = [["_id", "hashed"]];
const ACCOUNT: ShardKey = [A];
const by = (field: string, kind: 1 | "hashed" = 1): ShardKey => [A, [field, kind]];
/** A collection whose `_id` decides its race and names the key's values (see docs/decisions.md). */
const idNames = (what: string) =>
  `\`_id\` ${what}; the key's values are a function of the \`_id\`, so two inserts of one \`_id\` land on one shard`;

export const SHARD_PLAN: Record<string, ShardPlanEntry> = {
  accounts: { repository: "accounts", key: "unsharded", tenant: false, race: "`_id`" },
  alertCrossings: { repository: "alert-crossings", key: "unsharded", tenant: false, race: "`_id` per crossing" },
  alerts: { repository: "alerts", key: ACCOUNT, tenant: false, race: "—", ownedLookups: true },
  backfills: {
    repository: "backfills",
    key: ACCOUNT,
    tenant: false,
    race: "— (a fresh `_id` per backfill)",
    ownedLookups: true,
  },
  backfill_commits: {
    repository: "backfills",
    key: ID_HASHED,
    tenant: false,
    race: "`_id` = backfill: one commit per backfill",
  },
  backfill_events: {
    repository: "backfills",
    // Ranged: a backfill's held events (`_id` prefix `<backfill>/`) are read together, by one range.
    key: by("_id"),
    tenant: false,
    race: idNames("`<backfill>/<ref>`, an event held once per backfill (its account: the backfill's)"),
  },
  backfill_reverts: {
    repository: "backfills",
    key: ID_HASHED,
    tenant: false,
    race: "`_id` = backfill: one revert per backfill",
  },
  auditLog: { repository: "audit-log", key: by("_id", "hashed"), tenant: true, race: "— (insert-only, fresh `_id`)" },
  billingClaims: { repository: "billing-claims", key: ID_HASHED, tenant: true, race: "`_id` = contract" },
  billingFailures: {
    repository: "billing-runs",
    key: by("contractId"),
    tenant: true,
    race: idNames("`<contract>/<cycle>`"),
  },
  billingPendingPayments: {
    repository: "billing-runs",
    key: ID_HASHED,
    tenant: true,
    race: "`_id` = invoice",
  },
  billingSchedules: {
    repository: "billing-runs",
    key: ID_HASHED,
    tenant: true,
    race: "`_id` = contract",
  },
  collection_attempts: {
    repository: "collection-attempts",
    key: by("invoiceId"),
    tenant: true,
    race: idNames("`<invoice>/<number>`"),
  },
  contractChangesInFlight: {
    repository: "contract-changes-in-flight",
    key: by("contractId"),
    tenant: true,
    race: "— (a marker per change)",
    routedLookups: true,
  },
  contractDeletions: {
    repository: "contracts",
    key: by("_id", "hashed"),
    tenant: true,
    race: "`_id` = contract",
    ownedLookups: true,
  },
  contractTransitions: {
    repository: "contract-transitions",
    key: [["contractId", "hashed"]],
    routedLookups: true,
    tenant: true,
    race: idNames("`<contract>:<n>`"),
  },
  contracts: {
    repository: "contracts",
    key: by("_id", "hashed"),
    tenant: true,
    race: "— (ids are fresh)",
    ownedLookups: true,
  },
  couponRedemptions: {
    repository: "coupon-redemptions",
    key: by("code"),
    tenant: true,
    race: `${idNames("`<account>/<code>/<n>`")}; \`(accountId, code, contractId)\` unique, prefixed by the key`,
  },
  coupons: { repository: "coupons", key: ACCOUNT, tenant: false, race: "`(accountId, code)`" },
  creditRecurrenceStops: { repository: "credit-recurrences", key: ID_HASHED, tenant: true, race: "`_id` = grant" },
  credit_entries: {
    repository: "credits",
    key: by("customerId"),
    tenant: true,
    race: "`(accountId, customerId, seq)`: the ledger's order, prefixed by the key",
    pointedLookups: ["find {_id: equality}"],
  },
  creditGrantCustomers: {
    repository: "credits",
    key: ID_HASHED,
    tenant: true,
    race: "— (`_id` = grant: the same pointer from every writer of the grant, its customer)",
  },
  credit_ledger_hints: {
    repository: "credit-ledger-hints",
    key: ID_HASHED,
    tenant: true,
    race: "— (a lower bound raised by `$max` from seqs read: a lost raise leaves it lower, still a bound)",
  },
  credit_migrations: { repository: "credits", key: "unsharded", tenant: false, race: "`_id` = migration" },
  credit_expiries: { repository: "credits", key: by("_id", "hashed"), tenant: true, race: "—" },
  credit_notes: {
    repository: "credit-notes",
    key: by("_id", "hashed"),
    tenant: true,
    race: "`_id` given by the invoice's change log (in the key)",
    ownedLookups: true,
  },
  credit_recurrences: {
    repository: "credit-recurrences",
    key: by("customerId"),
    tenant: true,
    race: "— (`<contract>/<index>` upserted by the contract's one command; the customer is the contract's)",
  },
  customerAliases: {
    repository: "customer-aliases",
    key: ID_HASHED,
    tenant: true,
    race: "`_id` `<account>/<alias>`",
    ownedLookups: true,
  },
  customerNames: {
    repository: "customer-aliases",
    key: ID_HASHED,
    tenant: true,
    race: "`_id` `<account>/<name>`: one customer per name (moved out of `customers`, issue 48)",
  },
  customer_migrations: { repository: "customers", key: "unsharded", tenant: false, race: "`_id` = migration" },
  customers: {
    repository: "customers",
    key: by("_id", "hashed"),
    tenant: true,
    race: "— (a name is decided by its `customerNames` claim; `_id` fresh)",
    ownedLookups: true,
  },
  documentNumberAttempts: {
    repository: "document-numbers",
    key: [A, ["series", 1], ["documentId", "hashed"]],
    tenant: true,
    race: idNames("`<account>/<series>/<document>/<k>`: the number a document tries k-th, so one per document"),
  },
  documentNumber_migrations: {
    repository: "document-numbers",
    key: "unsharded",
    tenant: false,
    race: "`_id` = migration",
  },
  documentNumbers: {
    repository: "document-numbers",
    // A series on one shard: its last number is one routed read (a sequence is one order; ~200 bytes a number).
    key: by("series"),
    tenant: true,
    race: idNames("`<account>:<series>:<n>`: one document per number (its document's side: `documentNumberAttempts`)"),
    routedLookups: true,
    accepts: [[A]],
  },
  dunning_steps: {
    repository: "dunning-steps",
    key: by("invoiceId"),
    tenant: true,
    race: idNames("`<invoice>/<kind>/<day>`"),
  },
  event_batches: { repository: "events", key: ID_HASHED, tenant: true, race: "— (`_id` fresh per batch)" },
  event_rollup_migrations: { repository: "events", key: "unsharded", tenant: false, race: "`_id` = migration" },
  event_voids: { repository: "event-voids", key: ID_HASHED, tenant: true, race: "`_id` = event: one void per event" },
  events: {
    repository: "events",
    key: by("ref", "hashed"),
    tenant: true,
    race: "`(accountId, ref)`: the ingestion's idempotency, prefixed by the key",
    ownedLookups: true,
    accepts: [[["accountId", "hashed"]]],
  },
  idempotencyKeys: { repository: "idempotency-keys", key: "unsharded", tenant: false, race: "`_id` per key" },
  idempotencyOutcomes: { repository: "idempotency-keys", key: "unsharded", tenant: false, race: "`_id` per key" },
  invoiceChanges: {
    repository: "invoice-changes",
    key: [["invoiceId", "hashed"]],
    routedLookups: true,
    tenant: true,
    race: idNames("`<invoice>:<n>`"),
  },
  invoice_collections: {
    repository: "invoice-collections",
    key: by("_id", "hashed"),
    tenant: true,
    race: "`_id` = invoice (in the key)",
  },
  invoiceContracts: {
    repository: "invoices",
    key: ID_HASHED,
    tenant: true,
    race: "— (`_id` = invoice: the same pointer from every writer of the invoice, its contract)",
  },
  invoice_migrations: { repository: "invoices", key: "unsharded", tenant: false, race: "`_id` = migration" },
  invoicePlaces: {
    repository: "invoices",
    key: ID_HASHED,
    tenant: true,
    race: "`_id` `<account>/<seq>`: one invoice per place of the account's sequence (moved from `invoices`, issue 48)",
  },
  invoices: {
    repository: "invoices",
    key: by("contractId"),
    tenant: true,
    race: "`(accountId, contractId, cycleKey)` (prefixed by the key); an invoice's place by its `invoicePlaces` claim",
    ownedLookups: true,
    pointedLookups: ["find {_id: equality}"],
    routedWrites: true,
  },
  list_counts: { repository: "list-counts", key: "unsharded", tenant: false, race: "`_id` per generation" },
  measurements: {
    repository: "measurements",
    key: by("customerId"),
    tenant: true,
    race: "`(accountId, customerId, meterId, day)`, prefixed by the key",
  },
  meters: { repository: "meters", key: ACCOUNT, tenant: false, race: "`(accountId, key)`", ownedLookups: true },
  reservations: {
    repository: "reservations",
    key: [["chain", "hashed"]],
    routedLookups: true,
    tenant: true,
    race:
      `${idNames("`<chain>_<n>`: one reservation per slot of a chain, and per ref in it")}; ` +
      "a ref's usage once per account: `reservationRefs`",
    accepts: [[A]],
  },
  reservationOpenings: {
    repository: "reservations",
    key: by("customerId"),
    tenant: true,
    race: idNames("`<chain>/<day>`: a customer's chain with reservations expiring that day, written once"),
  },
  reservationRefs: {
    repository: "reservations",
    key: ID_HASHED,
    tenant: true,
    race: "`_id` `<account>/<ref>`: one reservation's usage per ref, claimed at its first settlement (issues 48, 51)",
  },
  reservation_migrations: { repository: "reservations", key: "unsharded", tenant: false, race: "`_id` = migration" },
  reservationSettlements: {
    repository: "reservations",
    key: ID_HASHED,
    tenant: true,
    race: "`_id` = the reservation (its claim), `<reservation>/recorded` (its usage written)",
  },
  portal_keys: { repository: "portal-keys", key: "unsharded", tenant: false, race: "`_id` the account" },
  mrrLedger: {
    repository: "mrr-ledger",
    key: by("_id", "hashed"),
    tenant: true,
    race: "— (insert-only; `_id` `<contract>:<change>` or `<invoice>:usage`, in the key: a repeat is a no-op)",
  },
  exports: { repository: "exports", key: "unsharded", tenant: false, race: "— (a fresh `_id` per export)" },
  exportChunks: {
    repository: "export-chunks",
    key: [["exportId", 1]],
    tenant: true,
    race: idNames("`<export>:<n>`"),
  },
  payment_providers: { repository: "payment-providers", key: "unsharded", tenant: false, race: "`_id`" },
  payment_transactions: {
    repository: "payments",
    key: by("transactionId", "hashed"),
    routedLookups: true,
    tenant: true,
    race: "`(accountId, transactionId)`, prefixed by the key",
  },
  planMigrationItems: {
    repository: "plan-migrations",
    key: by("migrationId"),
    tenant: true,
    race: idNames("`<migration>:<contract>`"),
  },
  planMigrations: {
    repository: "plan-migrations",
    key: ACCOUNT,
    tenant: false,
    race: "— (ids are fresh)",
    ownedLookups: true,
  },
  planVersions: { repository: "plans", key: "unsharded", tenant: false, race: "`_id` `<plan>:<n>`" },
  plans: { repository: "plans", key: ACCOUNT, tenant: false, race: "`(accountId, key)`", ownedLookups: true },
  provider_events: { repository: "provider-events", key: ID_HASHED, tenant: true, race: "`_id` per event" },
  rateLimitSlots: { repository: "rate-limits", key: "unsharded", tenant: false, race: "`_id` `<window>/<n>`" },
  rateLimitWindows: { repository: "rate-limits", key: "unsharded", tenant: false, race: "`_id` per window" },
  collectionEntries: {
    repository: "collection-entries",
    key: by("_id", "hashed"),
    tenant: true,
    race: "— (`_id` `<invoice>:<n>` in the key: a repeat is a no-op)",
  },
  receivableEntries: {
    repository: "receivable-entries",
    key: by("_id", "hashed"),
    tenant: true,
    race: "— (`_id` `<invoice>:<n>` in the key: a repeat is a no-op)",
  },
  reportClosings: {
    repository: "report-closings",
    key: ACCOUNT,
    tenant: false,
    race: idNames("`<account>:<currency>:<report>:<month>:<part>`: a month closed once, its first part first"),
  },
  reportLedger_migrations: {
    repository: "report-ledger-backfill",
    key: "unsharded",
    tenant: false,
    race: "`_id` = migration",
  },
  revenueSchedules: {
    repository: "revenue-schedules",
    key: by("invoiceId"),
    tenant: true,
    race: "— (`_id` `<invoice>:<n>` names the key: a repeat is a no-op)",
  },
  taxRates: { repository: "tax-rates", key: ACCOUNT, tenant: false, race: "`(accountId, code)`", ownedLookups: true },
  streamLeases: {
    repository: "stream-leases",
    key: "unsharded",
    tenant: false,
    race: "`_id` `<account>/<k>`: one open customer stream per place, at most 5 an account",
  },
  testClockLeases: { repository: "test-clock-leases", key: "unsharded", tenant: false, race: "`_id`" },
  tokenEnds: { repository: "tokens", key: "unsharded", tenant: false, race: "`_id` `<token>/<cause>`" },
  tokens: { repository: "tokens", key: "unsharded", tenant: false, race: "`hash` unique across accounts" },
  usage_rollup_widenings: { repository: "rollup-widenings", key: "unsharded", tenant: false, race: "`_id` = meter" },
  usage_rollups: {
    repository: "usage-rollups",
    key: by("alias", "hashed"),
    tenant: true,
    race: idNames("from the batch or generation and the key (account, name, alias, day)"),
  },
  webhookAttempts: { repository: "webhook-attempts", key: ID_HASHED, tenant: true, race: "`_id` per attempt" },
  webhookDeliveries: {
    repository: "webhook-deliveries",
    key: [A, ["endpointId", 1], ["messageId", "hashed"]],
    tenant: true,
    race: "`(accountId, endpointId, messageId)`, prefixed by the key",
    ownedLookups: true,
  },
  webhookEndpoints: { repository: "webhook-endpoints", key: ACCOUNT, tenant: false, race: "—", ownedLookups: true },
  webhookMessages: { repository: "webhook-messages", key: ID_HASHED, tenant: true, race: "`_id` per change" },
  webhookSecrets: { repository: "webhook-endpoints", key: "unsharded", tenant: false, race: "`_id` per rotation" },
  webhookSweepMarks: { repository: "webhook-messages", key: "unsharded", tenant: false, race: "`_id` per period" },
};

/** Shapes that go to more than one shard under the plan, each with why (see shard-scatters.ts). */
export { SCATTERS };
