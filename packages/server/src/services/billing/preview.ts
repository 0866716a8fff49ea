import type { InvoiceDraft } from "@billing/shared";
import type { ContractInMicros } from "../../domain/billing/contract.js";
import type { InvoiceBasis, PaymentTerms } from "../../domain/billing/invoice.js";
import type { PlannedInvoice } from "../../domain/billing/items.js";
import { composeInvoice, type InvoiceDraftInMicros } from "../../domain/billing/pipeline.js";
import { billedPlan } from "../../domain/contracts/billed.js";
import { conflict, DomainError, notFound } from "../../domain/errors.js";
import { presentInvoiceDraft } from "../../presenters/invoices.js";
import type { Repositories } from "../../repositories/index.js";
import { type TimeBudget, timeBudget } from "../work-budget.js";
import { invoiceBasis, paymentTermsOf, withinLimits } from "./invoice-basis.js";

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
 * An invoice priced from its basis as billing prices it (every stage of the pipeline, then the service's limits),
 * paid by `creditBalanceMicros` (0: no credits). Previews and simulations both price here.
 */
export const priceBasis = (basis: InvoiceBasis, creditBalanceMicros: number): InvoiceDraftInMicros =>
  withinLimits(composeInvoice({ ...basis, creditBalanceMicros }));

/**
 * A planned invoice of a contract as billing would price it, stored nowhere, paid by `creditBalanceMicros` (0: no
 * credits). A preview reads usage so far, up to the day of its `until`, and no further page of events once its `stop`
 * aborts (the client has gone).
 */
export async function priceUnstored(
  repositories: Repositories,
  accountId: string,
  contract: ContractInMicros,
  cycle: PlannedInvoice,
  {
    paymentTerms,
    creditBalanceMicros,
    preview,
  }: {
    paymentTerms: PaymentTerms;
    creditBalanceMicros: number;
    preview?: { until: Date; stop: AbortSignal; budget?: TimeBudget };
  },
): Promise<InvoiceDraftInMicros> {
  // Issued once due (a preview looks at a cycle still running): its due date counts from then.
  const issuedAt = preview && preview.until > cycle.dueAt ? preview.until : cycle.dueAt;
  const basis = await invoiceBasis(repositories, accountId, contract, cycle, { paymentTerms, issuedAt }, preview);
  return priceBasis(basis, creditBalanceMicros);
}

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
  const budget = timeBudget({
    budgetMs: limits.timeBudgetMs,
    unitsPerTurn: limits.unitsPerTurn,
    stop,
    refusal: () =>
      conflict(
        `The preview did not finish within its time budget of ${limits.timeBudgetMs / 1000} s (the contract's ` +
          "usage stored so far is too much to price at once)",
        [{ path: "contractId", message: `not previewed within ${limits.timeBudgetMs / 1000} s` }],
      ),
  });
  const stored = await repositories.contracts.get(accountId, contractId);
  if (!stored) throw notFound("Contract");
  const { contract, invoices } = billedPlan(stored, at);
  const running = invoices.filter((candidate) => candidate.start <= at && at < candidate.end).sort(previewOrder);
  const paymentTerms = contract && (await paymentTermsOf(repositories, accountId, contract));
  let first: InvoiceDraftInMicros | undefined;
  for (const cycle of running) {
    if (!contract || !paymentTerms) break;
    const creditBalanceMicros = await repositories.credits.payableToInvoiceMicros(accountId, contract.customerId, {
      issuedAt: cycle.dueAt,
      currency: contract.currency,
    });
    const invoice = await priceUnstored(repositories, accountId, contract, cycle, {
      paymentTerms,
      creditBalanceMicros,
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
