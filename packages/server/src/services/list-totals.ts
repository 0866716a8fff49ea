import type { Repositories } from "../repositories/index.js";

/**
 * How long after its time a document of a counted stream may still be stored (a create's time is taken before its
 * insert): a compaction counts only documents older than this, so none can appear behind its watermark.
 */
export const LIST_COUNT_SETTLE_MS = 10 * 60_000;
/** Documents one compaction of one stream counts at most: a tick's work per account is bounded. */
export const LIST_COUNT_STEP = 1_000;

/**
 * Counts the account's newest settled documents of every counted list (customers, contracts and their deletions,
 * invoices) into their totals, up to LIST_COUNT_STEP each: so a list page's total reads its count and the few
 * documents stored since. Safe beside other instances (each count is decided by a unique insert). Returns how many
 * streams moved on.
 */
export async function compactListTotals(
  repositories: Repositories,
  accountId: string,
  now: Date,
  { settleMs = LIST_COUNT_SETTLE_MS, step = LIST_COUNT_STEP } = {},
): Promise<number> {
  const { customers, contracts, invoices, listCounts } = repositories;
  const settledBefore = new Date(now.getTime() - settleMs);
  let moved = 0;
  for (const stream of [...customers.countedStreams, ...contracts.countedStreams, ...invoices.countedStreams]) {
    if (await listCounts.compact(accountId, stream, settledBefore, step)) moved += 1;
  }
  return moved;
}
