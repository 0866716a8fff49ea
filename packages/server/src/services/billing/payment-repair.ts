import { plannedInvoiceByKey } from "../../domain/billing/items.js";
import type { PendingPaymentDoc } from "../../repositories/billing-runs.js";
import { readContractIncludingDeleted } from "../contract-reads.js";
import { readInvoice } from "../invoices/changes.js";
import { settleFinalizationDebit } from "./drafts.js";
import { paymentTermsOf } from "./invoice-basis.js";
import { ABANDONED_AFTER_MS, type BillingPass } from "./pass.js";

/**
 * A debit whose invoice exists: a draft's finalization's, settled once the invoice is finalized or voided (drafts.ts).
 * A debit whose invoice may never have been written: the invoice is made with that debit, also when the
 * contract was deleted since (the cycle was due when the credits were taken). A pending payment without
 * a debit took nothing; it is dropped once old enough not to belong to a run still in progress.
 */
export async function completePayment(pass: BillingPass, payment: PendingPaymentDoc) {
  const { repositories, accountId } = pass;
  const call = { repositories, accountId, log: pass.log };
  const invoice = await readInvoice(call, payment._id.toHexString());
  if (invoice) {
    await settleFinalizationDebit(call, invoice);
    return;
  }
  const contract = await readContractIncludingDeleted(repositories, accountId, payment.contractId);
  const planned = contract && plannedInvoiceByKey(contract, payment.cycleKey, payment.cycleStart);
  const debited =
    contract && (await repositories.credits.paymentOf(accountId, contract.customerId, payment._id.toHexString()));
  if (!debited) {
    if (payment.createdAt.getTime() < pass.now.getTime() - ABANDONED_AFTER_MS)
      await repositories.billingRuns.closePayment(payment._id);
  } else if (contract && planned) {
    if (await pass.bill(contract, planned, await paymentTermsOf(repositories, accountId, contract), false))
      await repositories.billingRuns.closePayment(payment._id);
  } else {
    // Kept, never dropped: credits were taken and no invoice can carry them yet. Ours to look into.
    pass.log.error(
      { accountId, invoiceId: payment._id.toHexString(), contractId: payment.contractId },
      "a credit debit has no cycle to invoice",
    );
  }
}
