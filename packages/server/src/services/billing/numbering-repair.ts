import { changeInvoice } from "../invoices/changes.js";
import type { BillingPass } from "./pass.js";

/**
 * Numbers the account's invoices stored before the invoice life (they read FINALIZED with `number: null`), in the
 * order they were stored, as many per billing run call as it makes repairs (`hasMore` when more remain): each takes
 * one NUMBER of its log (the FINALIZE it never had: see domain/invoices/status.ts), issued when it was made, with the
 * lines and totals it has, so its number comes from the account's series like any other (gap-free, decided by
 * unique inserts) and its fields are then all stored, which the `status`, `billingStatus` and `overdue` filters
 * need. Safe alongside payments and voids: the log decides.
 */
export async function numberInvoicesStoredBeforeLife(pass: BillingPass): Promise<void> {
  const { repositories, accountId, log, limits } = pass;
  const found = await repositories.invoices.finalizedUnnumbered(accountId, limits.repairsPerCall + 1);
  if (found.length > limits.repairsPerCall) pass.run.hasMore = true;
  for (const stored of found.slice(0, limits.repairsPerCall)) {
    // Finalized (and billed) before the log: its NUMBER moves no money, so it counts in no money metric.
    await changeInvoice({ repositories, accountId, log }, stored.invoice.id, ({ invoice, life }) => {
      if (life.status !== "FINALIZED" || life.number !== null) return undefined;
      // Final since it was made: explain's AFTER_INVOICE keeps counting from then.
      const madeAt = new Date(invoice.createdAt);
      return {
        kind: "NUMBER",
        at: life.finalizedAt ?? madeAt,
        loggedAt: life.finalizationLoggedAt ?? madeAt,
        totalMicros: life.totalMicros,
        priced: life.priced,
      };
    });
  }
}
