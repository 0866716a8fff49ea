import type { InvoiceDraft } from "@billing/shared";
import { type PlannedInvoice, plannedInvoices } from "../../domain/billing/items.js";
import { composeInvoice, type InvoiceDraftInMicros } from "../../domain/billing/pipeline.js";
import { DomainError, notFound } from "../../domain/errors.js";
import { presentInvoiceDraft } from "../../presenters/invoices.js";
import type { Repositories } from "../../repositories/index.js";
import { invoiceBasis, paymentTermsOf, withinLimits } from "./invoice-basis.js";

/**
 * The order in which invoices running at the same moment are previewed: the one ending first, and of those the
 * arrears one (still accruing: the invoice a customer asks about) before the prepaid one (issued at its start).
 */
const previewOrder = (a: PlannedInvoice, b: PlannedInvoice) =>
  a.end.getTime() - b.end.getTime() || Number(a.prepaid) - Number(b.prepaid) || (a.key < b.key ? -1 : 1);

/**
 * The invoice of the contract's cycle running at `at`, with the credits available now; stored nowhere. When several
 * run, the first in `previewOrder` that bills something (a prepaid one-time product's later cycles bill nothing).
 * It may look ahead: nothing is written.
 */
export async function previewInvoice(
  repositories: Repositories,
  accountId: string,
  contractId: string,
  at: Date,
): Promise<InvoiceDraft> {
  const contract = await repositories.contracts.get(accountId, contractId);
  if (!contract) throw notFound("Contract");
  const running = plannedInvoices(contract, at)
    .filter((candidate) => candidate.start <= at && at < candidate.end)
    .sort(previewOrder);
  const paymentTerms = await paymentTermsOf(repositories, accountId, contract);
  let first: InvoiceDraftInMicros | undefined;
  for (const cycle of running) {
    const creditBalanceMicros = await repositories.credits.payableToInvoiceMicros(accountId, contract.customerId, {
      issuedAt: cycle.dueAt,
      currency: contract.currency,
    });
    const basis = await invoiceBasis(repositories, accountId, contract, cycle, paymentTerms, at);
    const invoice = withinLimits(composeInvoice({ ...basis, creditBalanceMicros }));
    if (invoice.lineItems.length > 0) return presentInvoiceDraft(invoice);
    first ??= invoice;
  }
  if (first) return presentInvoiceDraft(first);
  // 404, as for an invoice that does not exist: the request is valid, there is just no cycle to preview at `at`.
  const message = `The contract has no billing cycle at ${at.toISOString()}`;
  throw new DomainError("NOT_FOUND", message, [{ path: "at", message: "outside the contract's cycles" }]);
}
