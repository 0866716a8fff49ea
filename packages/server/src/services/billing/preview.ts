import type { InvoiceDraft } from "@billing/shared";
import type { PlannedInvoice } from "../../domain/billing/items.js";
import type { InvoiceDraftInMicros } from "../../domain/billing/pipeline.js";
import { billedPlan } from "../../domain/contracts/billed.js";
import { DomainError, notFound } from "../../domain/errors.js";
import { presentInvoiceDraft } from "../../presenters/invoices.js";
import type { Repositories } from "../../repositories/index.js";
import { readContract } from "../contract-reads.js";
import { callTimeBudget } from "../work-budget.js";
import { paymentTermsOf } from "./invoice-basis.js";
import { priceCycle } from "./price-cycle.js";

/**
 * A preview's time budget, as a simulation's (its usage reads stop past it: 409), and how often its reads let other
 * calls run (every `unitsPerTurn` days of usage read). Its work is the contract's: bounded by the contract's limits.
 */
export const PREVIEW_LIMITS = { timeBudgetMs: 10_000, unitsPerTurn: 1_000 };

/**
 * The order in which invoices running at the same moment are previewed: the one ending first, and of those the
 * arrears one (still accruing: the invoice a customer asks about) before the prepaid one (issued at its start).
 */
const previewOrder = (a: PlannedInvoice, b: PlannedInvoice) =>
  a.end.getTime() - b.end.getTime() || Number(a.prepaid) - Number(b.prepaid) || (a.key < b.key ? -1 : 1);

/**
 * The invoice of the contract's cycle running at `at`, with the credits available now; stored nowhere. The contract
 * is billed as runs bill it (billedPlan: its termination cut, its pauses). When several cycles run, the first in
 * `previewOrder` that bills something (a prepaid one-time product's later cycles bill nothing). It may look ahead:
 * nothing is written.
 */
export async function previewInvoice(
  repositories: Repositories,
  accountId: string,
  contractId: string,
  at: Date,
  stop: AbortSignal,
  limits = PREVIEW_LIMITS,
): Promise<InvoiceDraft> {
  const budget = callTimeBudget(limits, stop, {
    call: "preview",
    tooMuch: "the contract's usage stored so far is too much to price at once",
    path: "contractId",
    verb: "previewed",
  });
  const stored = await readContract(repositories, accountId, contractId);
  if (!stored) throw notFound("Contract");
  const { contract, invoices } = billedPlan(stored, at);
  const running = invoices.filter((candidate) => candidate.start <= at && at < candidate.end).sort(previewOrder);
  const paymentTerms = contract && (await paymentTermsOf(repositories, accountId, contract));
  let first: InvoiceDraftInMicros | undefined;
  for (const cycle of running) {
    if (!contract || !paymentTerms) break;
    const invoice = await priceCycle(repositories, accountId, contract, cycle, {
      paymentTerms,
      // Issued once due (a preview looks at a cycle still running): its due date counts from then.
      issuedAt: at > cycle.dueAt ? at : cycle.dueAt,
      credits: "balance",
      preview: { until: at, stop, budget },
    });
    if (invoice.lineItems.length > 0) return presentInvoiceDraft(invoice);
    first ??= invoice;
  }
  if (first) return presentInvoiceDraft(first);
  // 404, as for an invoice that does not exist: the request is valid, there is just no cycle to preview at `at`.
  const message = `The contract has no billing cycle at ${at.toISOString()}`;
  throw new DomainError("NOT_FOUND", message, [{ path: "at", message: "outside the contract's cycles" }]);
}
