/**
 * The query shapes that go to more than one shard under the plan (db/shard-plan.ts), each listed with why: the
 * reasoned allow-list test/shard-plan.test.ts holds the capture to. A shape the capture holds that is neither
 * targeted nor listed here fails the test; a listed shape the capture no longer holds fails it too.
 *
 * `background`: a sweep, purge or worker poll, bounded per run (a batch, a page per tick), never per request.
 * `request`: sent while answering a call. `migrating`: sent while answering a call only until a bounded, resumable
 * migration step of the upkeep worker is done on the database (a fallback for what it has not converted yet), then
 * never. `"account-wide"` stands for every shape of the collection that carries only
 * `accountId` of its key: mongos asks each shard holding one of the account's chunks for the page and merges them
 * (each shard reads at most the page); for an account split across the cluster that is every shard.
 */
export interface Scatter {
  when: "background" | "request" | "migrating";
  why: string;
  shapes: string[] | "account-wide";
}

const bg = (why: string, ...shapes: string[]): Scatter => ({ when: "background", why, shapes });
const req = (why: string, ...shapes: string[]): Scatter => ({ when: "request", why, shapes });
const untilMigrated = (why: string, ...shapes: string[]): Scatter => ({ when: "migrating", why, shapes });
const accountWide = (why: string): Scatter => ({ when: "request", why, shapes: "account-wide" });

const LISTS = "the account's lists and counts (a page per call, merge-sorted by mongos)";
const LOOK_FOR_WORK =
  "the billing scheduler's look for accounts with work (accounts-with-work.ts), a page of accounts a tick";
const OPERATIONS = "the operations metrics' and sweeps' time-field scans, a bounded batch per run";
const PURGE = "the expiry purge (db/expiry.ts), a bounded batch per run";
/** The months' closing (services/reports/closing.ts): the upkeep worker's, a few accounts and months per tick. */
const CLOSING = "the months' closing by the upkeep worker: an account's first entry, its sums up to a month's cut";
/** A closing's sums of the entries recorded before its cut (db/recorded-before.ts: two index ranges). */
const CLOSING_SUMS = [
  "count {accountId: equality, at: range, currency: equality, recordedAt: exists}",
  "count {accountId: equality, at: range, currency: equality, recordedAt: range}",
];
/**
 * A billing run's own reads, a bounded page per pass whether the scheduler, `POST /billing-runs` or a test clock's
 * advance runs it: background, as its due page (`billingSchedules`), the recurring grants' issuer and the expiry pass.
 */
const BILLING_PASS = "a billing run's pass (scheduler, POST /billing-runs, a test clock's advance), a page per pass";
/** A point write or read by `_id` alone: routed once the filter carries the key's fields on a cluster. */
const BY_ID = "a lookup or write by `_id` alone: to be routed by adding the key's fields (as db/find-owned.ts does)";

export const SCATTERS: Record<string, Scatter[]> = {
  backfills: [bg("the upkeep worker's walk over backfills not done yet, bounded per tick", "find {status: in}")],
  auditLog: [
    bg(PURGE, "delete {_id: in, expiresAt: range}", "find {expiresAt: range}"),
    accountWide("GET /audit-log: the newest entries first, a page per call"),
  ],
  billingClaims: [
    bg(PURGE, "delete {holder: equality}", "find {expiresAt: range}"),
    bg(`${BILLING_PASS}: the account's claims, at most 1,001`, "find {accountId: equality}"),
  ],
  billingFailures: [
    bg(
      "the billing run's retries due, a page per pass",
      "find {accountId: equality, retryAt: range} sort {retryAt: 1}",
    ),
    bg("a failure cleared once its cycle is billed (a retry of the run), by `_id` alone", "delete {_id: equality}"),
  ],
  billingPendingPayments: [
    bg("the billing run's pending debits, a page per pass", "find {accountId: equality} sort {createdAt: 1}"),
    bg(LOOK_FOR_WORK, "find {accountId: range} sort {accountId: 1}"),
  ],
  billingSchedules: [
    bg(
      "the due page of a billing run (scheduler or POST /billing-runs), 101 keys per shard per batch of 10 contracts",
      "find {accountId: equality, nextDueAt: range} sort {nextDueAt: 1, _id: 1}",
      "find {accountId: equality} sort {nextDueAt: 1, _id: 1}",
    ),
    bg(LOOK_FOR_WORK, "find {accountId: range, nextDueAt: range} sort {accountId: 1}"),
  ],
  collection_attempts: [bg(`the collection worker: ${BY_ID}`, "update {_id: equality}")],
  contractDeletions: [accountWide("GET /contracts/deleted and its count")],
  contractTransitions: [bg(OPERATIONS, "find {recordedAt: range} sort {recordedAt: 1}")],
  contracts: [
    bg(OPERATIONS, "find {createdAt: range} sort {createdAt: 1}", "find {deletedAt: range} sort {deletedAt: 1}"),
    accountWide(LISTS),
  ],
  couponRedemptions: [
    bg(OPERATIONS, "find {createdAt: range} sort {createdAt: 1}"),
    accountWide("contracts' redemptions (a few per contract): the key is the coupon's code, which decides its race"),
  ],
  coupons: [
    bg(OPERATIONS, "find {archivedAt: range} sort {archivedAt: 1}", "find {createdAt: range} sort {createdAt: 1}"),
  ],
  credit_entries: [
    bg(OPERATIONS, "find {createdAt: range} sort {createdAt: 1}"),
    bg(
      "the ledger export: the account's entries of a window, a batch per look of the export worker",
      "find {accountId: equality, createdAt: range} sort {createdAt: 1, _id: 1}",
      "find {_id: equality, accountId: equality, createdAt: range}",
      "find {_id: range, accountId: equality, createdAt: equality} sort {createdAt: 1, _id: 1}",
    ),
    bg(
      "the grants' pointers' migration (noteStoredGrantCustomers): a page of 1,000 per tick, until done; a start's " +
        "look for any entry",
      "find {} sort {_id: 1}",
      "find {_id: range} sort {_id: 1}",
    ),
  ],
  credit_expiries: [
    bg(
      "the expiry pass over an account's grants, a page per pass",
      "delete {_id: equality}",
      "find {accountId: equality, expiresAt: range} sort {expiresAt: 1}",
      "find {accountId: equality} sort {expiresAt: 1}",
    ),
  ],
  credit_notes: [
    bg(
      OPERATIONS,
      "find {createdAt: range} sort {createdAt: 1}",
      "find {refundSettledAt: range} sort {refundSettledAt: 1}",
    ),
    accountWide(LISTS),
  ],
  creditRecurrenceStops: [bg(OPERATIONS, "find {recordedAt: range} sort {recordedAt: 1}")],
  credit_recurrences: [
    bg(
      "the recurring grants' issuer, a bounded page per pass",
      "find {nextDueAt: range} sort {nextDueAt: 1}",
      "find {accountId: equality, nextDueAt: range} sort {nextDueAt: 1}",
    ),
    bg(
      "the webhook sweep's recurring grant of a recorded cancellation (the cancellation names no customer), a " +
        "bounded batch per run",
      "find {_id: equality, accountId: equality}",
    ),
  ],
  customers: [
    bg(OPERATIONS, "find {updatedAt: range} sort {updatedAt: 1}"),
    bg("the names' migration (claimStoredNames): a page of 1,000 per tick, until done", "find {} sort {_id: 1}"),
    untilMigrated(
      "a name's check (a creation, a rename) and lookup by name: read from the customers until the names' migration " +
        "is done, from the name's claim (`customerNames`, by `_id`) and the customer (by `_id`) after",
      "find {accountId: equality, name: equality}",
    ),
    untilMigrated(
      "an alias's check for customers stored before alias claims, until the aliases' migration is done; the list " +
        "by alias, from the alias's claim (`customerAliases`) and the customer (by `_id`) after",
      "find {accountId: equality, aliases: equality}",
    ),
    accountWide(LISTS),
  ],
  documentNumbers: [
    bg(
      "the numbers' migration to attempts (claimStoredNumbers): a page of 1,000 per tick, until done",
      "find {} sort {_id: 1}",
    ),
  ],
  event_batches: [bg("the batch repair's scan, bounded per tick", "find {startedAt: range}")],
  event_voids: [bg("the walk over voids not applied yet, bounded per tick", "find {appliedAt: equality}")],
  events: [
    bg(
      "the batch repair: a batch's events, bounded by the batch",
      "find {_id: range, batchId: equality}",
      "find {batchId: equality}",
      "find {batchId: equality} sort {_id: 1}",
    ),
    bg(
      "a rollup key's day of events summarized again (a widening, an event's void), bounded per tick",
      "find {accountId: equality, customerAlias: equality, name: equality, timestamp: range}",
    ),
    accountWide("GET /events and the usage read by customer: the key splits by ref, which reads never carry"),
  ],
  invoiceChanges: [
    bg(
      "the payments export: the account's payments of a window, a batch per look of the export worker",
      "find {accountId: equality, at: range, kind: equality} sort {at: 1, _id: 1}",
      "find {_id: range, accountId: equality, at: equality, kind: equality} sort {at: 1, _id: 1}",
    ),
  ],
  invoice_collections: [
    bg(
      "the collection worker's walk, a page per tick",
      "find {_id: equality}",
      "update {_id: equality}",
      "find {active: equality, nextAt: range} sort {nextAt: 1}",
      "find {accountId: equality, active: equality, nextAt: range} sort {nextAt: 1}",
      "find {accountId: equality, active: equality} sort {nextAt: 1}",
    ),
  ],
  invoicePlaces: [
    bg(
      "the last place given, a billing pass's first guess (once per pass)",
      "find {accountId: equality} sort {seq: -1}",
    ),
  ],
  invoices: [
    bg(
      OPERATIONS,
      "find {createdAt: range} sort {createdAt: 1}",
      "find {finalizationLoggedAt: range} sort {finalizationLoggedAt: 1}",
      "find {paidAt: range} sort {paidAt: 1}",
      "find {voidedAt: range} sort {voidedAt: 1}",
    ),
    bg(
      `${BILLING_PASS}: its look for drafts and invoices to number (the \`$or\`'s two branches), the drafts it ` +
        "finalizes or prices again, the invoices it numbers, a test clock's next stop, the last place given",
      "find {accountId: equality, status: equality}",
      "find {accountId: equality, number: equality, status: in}",
      "find {accountId: equality, finalizesAt: range, status: equality} sort {finalizesAt: 1}",
      "find {accountId: equality, pricedAt: range, status: equality} sort {pricedAt: 1}",
      "find {accountId: equality, number: equality, status: in} sort {seq: 1}",
      "find {accountId: equality} sort {seq: -1}",
    ),
    bg(
      "the contracts' pointers' migration (noteStoredContracts): a page of 1,000 per tick, until done; a start's " +
        "look for any invoice",
      "find {} sort {_id: 1}",
      "find {_id: range} sort {_id: 1}",
    ),
    accountWide(
      "lists and counts: the key splits by contract, which they do not carry (a lookup by id reads its contract's " +
        "pointer first: `invoiceContracts`)",
    ),
  ],
  meters: [bg(OPERATIONS, "find {updatedAt: range} sort {updatedAt: 1}")],
  planMigrationItems: [bg(`the plan-migration worker: ${BY_ID}`, "update {_id: equality}")],
  planMigrations: [bg("the plan-migration worker's poll, a few per tick", "find {status: equality} sort {_id: 1}")],
  collectionEntries: [
    bg(CLOSING, ...CLOSING_SUMS, "find {accountId: equality, currency: equality} sort {at: 1}"),
    accountWide("GET /reports/collections: an account-wide aggregate by currency"),
  ],
  receivableEntries: [
    bg(CLOSING, ...CLOSING_SUMS, "find {accountId: equality, currency: equality} sort {at: 1}"),
    accountWide("GET /reports/receivables: an account-wide aggregate by currency"),
  ],
  revenueSchedules: [
    bg(CLOSING, "find {accountId: equality, currency: equality} sort {billedAt: 1}"),
    accountWide("GET /reports/revenue: an account-wide aggregate by currency"),
  ],
  mrrLedger: [
    bg(CLOSING, "find {accountId: equality, currency: equality, kind: equality} sort {start: 1}"),
    accountWide("GET /reports/mrr: the account's contracts live in the window and their usage records"),
  ],
  taxRates: [bg(OPERATIONS, "find {updatedAt: range} sort {updatedAt: 1}")],
  usage_rollups: [bg("the rollup compaction, bounded per tick", "delete {_id: in}", "find {generation: equality}")],
  webhookDeliveries: [
    bg(
      "the webhook worker: its poll and its writes to the delivery it holds (an attempt's outcome; abandoned when " +
        "its endpoint is gone or disabled)",
      "find {nextAttemptAt: range, status: equality} sort {nextAttemptAt: 1}",
      "find {_id: equality}",
      "findAndModify {_id: equality}",
      "update {_id: equality, attempts: range}",
      "update {_id: equality}",
    ),
    req(
      "an endpoint's deliveries, newest first: a page per shard holding one of the endpoint's chunks (the key splits " +
        "an endpoint by message)",
      "count {accountId: equality, endpointId: equality}",
      "find {accountId: equality, endpointId: equality} sort {_id: -1}",
    ),
  ],
  reservations: [
    bg(
      "the refs' and openings' migrations (claimStoredRefs, noteStoredOpenings): a page of 1,000 per tick, until done",
      "find {} sort {_id: 1}",
      "find {_id: range} sort {_id: 1}",
    ),
    bg(
      "the webhook sweep's recent reservations, a bounded batch per run",
      "find {createdAt: range} sort {createdAt: 1}",
    ),
    bg(
      "the webhook sweep's recent expiries (`reservation.expired`), a bounded batch per run",
      "find {expiresAt: range} sort {expiresAt: 1}",
    ),
    untilMigrated(
      "a customer's stream, each poll, until the openings' migration is done: by customer (at most 500 per shard); " +
        "after, the customer's openings name its chains (`reservationOpenings`, one shard), its slots read by them",
      "find {accountId: equality, customerId: equality, expiresAt: range} sort {expiresAt: 1}",
    ),
  ],
  reservationSettlements: [
    bg(
      "the webhook sweep's recent settlements, a bounded batch per run",
      "find {createdAt: range, stage: equality} sort {createdAt: 1}",
    ),
  ],
};
