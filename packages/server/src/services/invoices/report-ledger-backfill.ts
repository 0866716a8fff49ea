import { applyInvoiceChange, type InvoiceChange, newInvoiceLife } from "../../domain/invoices/life.js";
import type { Repositories } from "../../repositories/index.js";
import type { StoredInvoice, StoredPricing } from "../../repositories/invoices.js";
import { recordCollection, recordMrrUsage, recordReceivable, recordRevenue } from "./report-ledgers.js";

/** Invoices replayed per step of the backfill: a bounded page per upkeep tick. */
export const INVOICES_PER_BACKFILL_STEP = 100;

/**
 * One step of the report ledgers' backfill (docs/decisions.md, "The report ledgers' backfill"): the next page of
 * invoices of the account the walk is in, each replayed from its change log as its completion records it
 * (report-ledgers.ts: receivables, revenue, MRR usage, collections), then the walk's place noted; accounts in id
 * order, invoices in the order they were stored. Every entry is keyed by its invoice change, so an invoice whose
 * entries exist (finalized since the ledgers existed, or replayed by an earlier pass or another instance) gains
 * nothing. Returns the invoices replayed: 0 once the walk is done.
 */
export async function stepReportLedgerBackfill(
  repositories: Repositories,
  limit = INVOICES_PER_BACKFILL_STEP,
): Promise<number> {
  return repositories.reportLedgerBackfill.step(async (at) => {
    const accountId = at.accountId ?? (await repositories.accounts.idsAfter(undefined, 1))[0];
    if (accountId === undefined) return { read: 0, next: undefined };
    const page = await repositories.invoices.storedAfter(accountId, at.seq, limit);
    for (const { stored } of page) await replayLedgers({ repositories, accountId }, stored);
    const last = page.at(-1);
    if (page.length === limit && last) return { read: page.length, next: { accountId, seq: last.seq } };
    const [next] = await repositories.accounts.idsAfter(accountId, 1);
    // An account's last page may be empty: the walk still moved.
    return { read: Math.max(page.length, 1), next: next === undefined ? undefined : { accountId: next } };
  });
}

/**
 * The invoice's ledger entries of its applied changes (up to its changeCount: later ones are pending, and their
 * completion records them), from a draft of its lines through each change in order, as changes.ts's applyPending.
 */
async function replayLedgers(scope: { repositories: Repositories; accountId: string }, stored: StoredInvoice) {
  if (stored.life.changeCount === 0) return;
  const changes = await scope.repositories.invoiceChanges.after(scope.accountId, stored.invoice.id);
  let life = newInvoiceLife(stored.life.priced);
  for (const logged of changes) {
    if (logged.n > stored.life.changeCount) break;
    // A finalization's number is the invoice's (claimed after it was logged): the ledgers never read it.
    const change = logged as InvoiceChange<StoredPricing> & { n: number };
    const next = applyInvoiceChange(life, change);
    await recordReceivable(scope, stored.invoice, change, life, next);
    await recordRevenue(scope, stored.invoice, change, life, next);
    await recordMrrUsage(scope, stored.invoice, change, life, next);
    await recordCollection(scope, stored.invoice, change, next);
    life = next;
  }
}
