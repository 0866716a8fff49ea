import type { Collection } from "mongodb";
import type { InvoiceDoc } from "../presenters/stored-invoices.js";

/** The invoices collection's indexes, each with the reads or race it serves (the index proof checks them all). */
export async function ensureInvoiceIndexes(invoices: Collection<InvoiceDoc>): Promise<void> {
  // The first engine keyed invoices by cycle start alone; items of different cycle lengths need the cycle key.
  await invoices.dropIndex("accountId_1_contractId_1_billingCycle.startTime_1").catch(() => undefined);
  // Each of a contract's invoices is made once, however often (or concurrently) the engine runs.
  await invoices.createIndex({ accountId: 1, contractId: 1, cycleKey: 1 }, { unique: true });
  // The lists' order. Its places are decided by their claims (invoice-places.ts), no longer here: a shard key that
  // splits an account cannot prefix a unique `(accountId, seq)`. One made unique by an earlier version is made again.
  const indexes = await invoices
    .listIndexes()
    .toArray()
    .catch(() => []);
  if (indexes.some(({ name, unique }) => name === "accountId_1_seq_1" && unique)) {
    await invoices.dropIndex("accountId_1_seq_1").catch(() => undefined);
  }
  await invoices.createIndex({ accountId: 1, seq: 1 });
  await invoices.createIndex({ accountId: 1, customerId: 1, seq: 1 });
  await invoices.createIndex({ accountId: 1, contractId: 1, seq: 1 });
  await invoices.createIndex({ accountId: 1, customerId: 1, contractId: 1, seq: 1 });
  // Lists filtered on the life (lifeFilter), of the account or of one customer, within a date's range: the due
  // date's when `overdue` adds it, the issue date's (issuedFilter, never with `overdue`): their pages, then totals.
  for (const date of ["dueDate", "finalizedAt"] as const) {
    for (const customer of [{}, { customerId: 1 }] as Record<string, 1>[]) {
      const life: Record<string, 1> = { accountId: 1, ...customer, status: 1, billingStatus: 1, owing: 1 };
      await invoices.createIndex({ ...life, seq: 1, [date]: 1 });
      await invoices.createIndex({ ...life, [date]: 1 });
    }
  }
  await invoices.createIndex({
    accountId: 1,
    customerId: 1,
    "billingCycle.startTime": 1,
    "billingCycle.endTime": 1,
  });
  // A simulation's actual total: the finalized invoices of a customer, or of a contract, by cycle start.
  await invoices.createIndex({ accountId: 1, customerId: 1, status: 1, "billingCycle.startTime": 1 });
  await invoices.createIndex({ accountId: 1, contractId: 1, status: 1, "billingCycle.startTime": 1 });
  // The webhook sweep's reading of recent invoices, finalizations, payments in full and voids.
  await invoices.createIndex({ createdAt: 1 });
  // The unfiltered list total's counting (countedStream).
  await invoices.createIndex({ accountId: 1, createdAt: 1, _id: 1 });
  await invoices.dropIndex("finalizedAt_1").catch(() => undefined);
  await invoices.createIndex({ finalizationLoggedAt: 1 });
  await invoices.createIndex({ paidAt: 1 });
  await invoices.createIndex({ voidedAt: 1 });
  // Billing runs' numbering of invoices stored before the invoice life (no number), in issue order.
  await invoices.createIndex({ accountId: 1, number: 1, status: 1, seq: 1 });
  // Billing runs' drafts: those to finalize, and those not priced by a run at or after the run's `at`.
  await invoices.createIndex({ accountId: 1, status: 1, finalizesAt: 1 });
  await invoices.createIndex({ accountId: 1, status: 1, pricedAt: 1 });
  // Late usage (issue 45): a contract's invoices finalized within the window, and its drafts.
  await invoices.createIndex({ accountId: 1, contractId: 1, status: 1, finalizedAt: 1 });
}
