import type { InvoiceChange, InvoiceLife } from "../../domain/invoices/life.js";
import { asMicros } from "../../domain/money/micros.js";
import { receivableMomentOf, receivableOf } from "../../domain/reports/receivables.js";
import type { StoredInvoice, StoredPricing } from "../../repositories/invoices.js";
import type { CallScope } from "../call-scope.js";

/**
 * Writes the receivables ledger's entry of one change (repositories/receivable-entries.ts): what the change moved the
 * invoice's amount owed by, `before` → `after`. A change that moves nothing (a draft's void) writes none. Called
 * before the invoice takes the change, keyed by the change's place, so it is written exactly once.
 */
export async function recordReceivable(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  invoice: StoredInvoice["invoice"],
  change: InvoiceChange<StoredPricing> & { n: number },
  before: InvoiceLife<StoredPricing>,
  after: InvoiceLife<StoredPricing>,
): Promise<void> {
  const micros = receivableOf(after) - receivableOf(before);
  if (micros === 0) return;
  await repositories.receivableEntries.record({
    accountId,
    invoiceId: invoice.id,
    n: change.n,
    customerId: invoice.customerId,
    currency: after.priced.currency ?? invoice.currency,
    dueDate: after.priced.dueDate ?? new Date(invoice.dueDate),
    at: receivableMomentOf(change, after.finalizedAt),
    micros: asMicros(micros),
  });
}
