import type { ObjectId } from "mongodb";
import type { PendingPaymentDoc } from "../../repositories/billing-runs.js";
import type { Repositories } from "../../repositories/index.js";

type Opening = Omit<PendingPaymentDoc, "createdAt">;

/**
 * The pending payments of a billing batch (storeInvoice notes one before it debits credits, and closes it once the
 * invoice is stored), written two commands a batch instead of two an invoice: the first invoice of the batch to open
 * one opens every candidate's (the batch's invoices to finalize now whose customer has credits) in one insert, and
 * the batch's end closes them in one delete — all but those opened for a debit and never closed (its invoice failed:
 * payment-repair.ts completes it). A marker opened for an invoice that debits nothing is what a run stopping before
 * its debit leaves today: payment-repair.ts drops it once old (ABANDONED_AFTER_MS).
 */
export function batchPayments(billingRuns: Repositories["billingRuns"]) {
  /** The batch's candidates not opened yet, by invoice id. */
  let candidates = new Map<string, Opening>();
  /** Opened by this batch's one insert: each closed at the batch's end unless its debit is still open. */
  const opened = new Map<string, ObjectId>();
  /** Opened for a debit, and not closed by its invoice yet. */
  const debiting = new Set<string>();
  /** Opened by this batch's insert and by no earlier try: no debit of theirs can exist but this batch's. */
  let fresh = new Set<string>();
  /** Opens every candidate's pending payment in one insert, once the batch's invoice `id` needs its own. */
  const openWith = async (id: string) => {
    if (opened.has(id) || !candidates.has(id)) return;
    const batch = [...candidates.values()];
    candidates = new Map();
    fresh = await billingRuns.openPayments(batch);
    for (const { _id } of batch) opened.set(_id.toHexString(), _id);
  };

  return {
    /** The batch's invoices that may debit credits (pass-reads.ts prefetch). */
    prepare(batch: Opening[]) {
      candidates = new Map(batch.map((opening) => [opening._id.toHexString(), opening]));
    },

    billingRuns: {
      ...billingRuns,
      async openPayment(payment: Opening) {
        const id = payment._id.toHexString();
        await openWith(id);
        if (!opened.has(id)) return billingRuns.openPayment(payment);
        debiting.add(id);
      },
      async closePayment(invoiceId: ObjectId) {
        const id = invoiceId.toHexString();
        if (!opened.has(id)) return billingRuns.closePayment(invoiceId);
        debiting.delete(id);
      },
    } satisfies Repositories["billingRuns"],

    /**
     * Whether this batch's insert opened the invoice's pending payment (no earlier try of its finalization did), taken
     * once: its debit's first look for an earlier payment is skipped (repositories/credits.ts `unpaidBefore`). An
     * invoice the credits pay nothing of now (an exhausted balance) opens no payment of its own; `nothingToPay`
     * opens the batch's for it, so that one insert a batch answers what a look an invoice would: whether an earlier
     * try paid it (its marker would be there: every debit opens one first, and it stays until its invoice is stored).
     */
    async unpaidBefore(invoiceId: string, { nothingToPay }: { nothingToPay: boolean }) {
      if (nothingToPay) await openWith(invoiceId);
      return fresh.delete(invoiceId);
    },

    /** Closes what the batch opened, its open debits excepted; called once every invoice of the batch was stored. */
    async close() {
      const closing = [...opened].filter(([id]) => !debiting.has(id)).map(([, invoiceId]) => invoiceId);
      // Later calls of the pass open and close directly: what is still debiting stays for payment-repair.ts.
      opened.clear();
      debiting.clear();
      fresh = new Set();
      candidates = new Map();
      await billingRuns.closePayments(closing);
    },
  };
}
