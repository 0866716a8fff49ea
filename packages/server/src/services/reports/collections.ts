import type { CollectionsQuery, CollectionsReport } from "@billing/shared";
import { subMicros } from "../../domain/money/micros.js";
import { amountOf } from "../../presenters/money.js";
import type { CallScope } from "../call-scope.js";

/**
 * Money collected in [from, to): the payments dated in it and, apart, the provider refunds made in it, each summed by
 * the database from the collections ledger (index `{ accountId, currency, at }`), never from every invoice.
 */
export async function collectionsReport(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  { from, to, currency }: CollectionsQuery,
): Promise<CollectionsReport> {
  const start = new Date(from);
  const end = new Date(to);
  const { PAYMENT, REFUND } = await repositories.collectionEntries.sums(accountId, currency, start, end);
  return {
    from: start.toISOString(),
    to: end.toISOString(),
    currency,
    collected: amountOf(PAYMENT),
    refunded: amountOf(REFUND),
    net: amountOf(subMicros(PAYMENT, REFUND)),
  };
}
