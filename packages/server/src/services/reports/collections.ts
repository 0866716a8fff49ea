import type { CollectionsQuery, CollectionsReport } from "@billing/shared";
import { addMicros, subMicros, ZERO_MICROS } from "../../domain/money/micros.js";
import { amountOf } from "../../presenters/money.js";
import type { CallScope } from "../call-scope.js";

/**
 * Money collected in [from, to): the payments dated in it and, apart, the provider refunds made in it. The months
 * of the window that are closed (services/reports/closing.ts) from their closings plus the entries recorded since
 * their cut and dated in them (late postings: a payment recorded after its month closed); the rest of the window
 * summed by the database from the collections ledger (index `{ accountId, currency, at }`), never from every invoice.
 */
export async function collectionsReport(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  { from, to, currency }: CollectionsQuery,
): Promise<CollectionsReport> {
  const start = new Date(from);
  const end = new Date(to);
  const entries = repositories.collectionEntries;
  const closings = (await repositories.reportClosings.inRange(accountId, currency, "collections", start, end)).filter(
    (closing) => closing.end <= end,
  );
  // The stretches of the window no closed month covers, each summed from the ledger.
  const gaps: { from: Date; to: Date }[] = [];
  let cursor = start;
  for (const closing of closings) {
    if (cursor < closing.month) gaps.push({ from: cursor, to: closing.month });
    cursor = closing.end;
  }
  if (cursor < end) gaps.push({ from: cursor, to: end });
  const cuts = closings.map(({ cut }) => cut.getTime());
  const [late, ...sums] = await Promise.all([
    cuts.length === 0
      ? []
      : entries.recordedSince(accountId, currency, new Date(Math.min(...cuts)), { from: start, to: end }),
    ...gaps.map((gap) => entries.sums(accountId, currency, gap.from, gap.to)),
  ]);
  let collected = ZERO_MICROS;
  let refunded = ZERO_MICROS;
  for (const sum of sums) {
    collected = addMicros(collected, sum.PAYMENT);
    refunded = addMicros(refunded, sum.REFUND);
  }
  for (const { month, end: monthEnd, cut, figures } of closings) {
    collected = addMicros(collected, figures.payments);
    refunded = addMicros(refunded, figures.refunds);
    for (const entry of late)
      if (entry.recordedAt >= cut && entry.at >= month && entry.at < monthEnd)
        if (entry.kind === "PAYMENT") collected = addMicros(collected, entry.micros);
        else refunded = addMicros(refunded, entry.micros);
  }
  return {
    from: start.toISOString(),
    to: end.toISOString(),
    currency,
    collected: amountOf(collected),
    refunded: amountOf(refunded),
    net: amountOf(subMicros(collected, refunded)),
  };
}
