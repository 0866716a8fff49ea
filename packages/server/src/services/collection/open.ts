import type { CallScope } from "../call-scope.js";

/**
 * Starts collecting a finalized invoice with something due (the FINALIZE's effect, so a crash before its charge
 * leaves the collection for the next run), when the account collects: a provider connected or a dunning policy.
 * Its first look is at the finalization: the charge at finalization.
 */
export async function openCollection(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  invoice: { id: string; customerId: string },
  { dueDate, at }: { dueDate: Date; at: Date },
) {
  const account = await repositories.accounts.get(accountId);
  const collects = account?.dunning || (await repositories.paymentProviders.view(accountId, "stripe"));
  if (!collects) return;
  const now = new Date();
  await repositories.invoiceCollections.open({
    _id: invoice.id,
    accountId,
    customerId: invoice.customerId,
    dueDate,
    active: true,
    nextAt: at,
    createdAt: now,
    updatedAt: now,
  });
}
