import { DEFAULT_NET_TERMS_DAYS, invoiceDraft } from "@billing/shared";
import type { ContractInMicros } from "../../domain/billing/contract.js";
import { contractDays } from "../../domain/billing/cycles.js";
import type { AppliedDiscount } from "../../domain/billing/discounts.js";
import { type InvoiceBasis, type PaymentTerms, usageByCharge, usageWindows } from "../../domain/billing/invoice.js";
import type { PlannedInvoice } from "../../domain/billing/items.js";
import type { InvoiceDraftInMicros } from "../../domain/billing/pipeline.js";
import { dealTermsAt } from "../../domain/contracts/deal-terms.js";
import { conflict, zodIssues } from "../../domain/errors.js";
import { type Micros, subMicros, sumMicros } from "../../domain/money/micros.js";
import { presentInvoiceDraft } from "../../presenters/invoices.js";
import type { Repositories } from "../../repositories/index.js";
import { couponsOf } from "../contract-reads.js";
import { taxTermsOf } from "../tax-terms.js";
import { readUsageWindows, usageReader } from "../usage.js";
import type { TimeBudget } from "../work-budget.js";

/**
 * The payment terms of a contract's invoices: its customer's END_OF_MONTH, else the customer's `netTermsDays`, else
 * the account's (default 30). Read once per contract, whatever the number of its invoices.
 */
export async function paymentTermsOf(
  repositories: Repositories,
  accountId: string,
  contract: ContractInMicros,
): Promise<PaymentTerms> {
  const [customer, account] = await Promise.all([
    repositories.customers.get(accountId, contract.customerId),
    repositories.accounts.get(accountId),
  ]);
  if (customer?.dueDays === "END_OF_MONTH") return "END_OF_MONTH";
  return { netDays: customer?.netTermsDays ?? account?.netTermsDays ?? DEFAULT_NET_TERMS_DAYS };
}

/**
 * The usage stage of an invoice, the one that reads: each charge's usage of each of its meters over the charge's
 * usage period (see usageWindows), all its meters read together (readUsageWindows), and the tax terms; its due date
 * counts from `issuedAt` by `paymentTerms`. A preview reads usage so far, up to the day of `until`, and stops reading
 * events once `stop` aborts (its client has gone: nothing is written, nobody waits for the answer), or its `budget`
 * is spent (checked before each read). `coupons`: the discounts it applies, when not the contract's redemptions now.
 */
export async function invoiceBasis(
  repositories: Repositories,
  accountId: string,
  given: ContractInMicros,
  cycle: PlannedInvoice,
  {
    paymentTerms,
    issuedAt,
    coupons: givenCoupons,
  }: { paymentTerms: PaymentTerms; issuedAt: Date; coupons?: AppliedDiscount[] },
  preview?: { until: Date; stop: AbortSignal; budget?: TimeBudget },
): Promise<InvoiceBasis> {
  // The contract's own deal terms (minimum commitment, discounts) in force on the cycle's first day.
  const contract = dealTermsAt(given, cycle.start);
  const windows = usageWindows(contract, cycle, preview?.until);
  const reader = usageReader(repositories, accountId, contract.customerId, preview?.stop);
  const budget = preview?.budget;
  const values = await readUsageWindows(
    reader,
    windows.flat(),
    budget && { beforeRead: budget.check, afterRead: budget.spend },
  );
  const usage = usageByCharge(windows, (window) => values.get(window) ?? 0n);
  const tax = await taxTermsOf(repositories, accountId, contract, cycle.charges);
  const termChargedMicros = await termCharged(repositories, accountId, contract, cycle);
  const coupons = givenCoupons ?? (await couponsOf(repositories, accountId, contract));
  return {
    contract,
    cycle,
    usage,
    issuedAt,
    paymentTerms,
    tax,
    coupons,
    ...(termChargedMicros !== undefined && { termChargedMicros }),
  };
}

/** The most invoices of a term a TERM minimum commitment sums: ten years of monthly invoices, and room to spare. */
const MAX_TERM_INVOICES = 10_000;

/**
 * For a TERM minimum commitment, on the term's last invoice (the one ending on the contract's endDate): what the
 * term's other finalized invoices charged before tax, after discounts (total + creditsUsed − tax of each).
 */
async function termCharged(
  repositories: Repositories,
  accountId: string,
  contract: ContractInMicros,
  cycle: PlannedInvoice,
): Promise<Micros | undefined> {
  if (contract.minimumCommitment?.period !== "TERM") return undefined;
  const covered = contractDays(contract.startDate, contract.endDate);
  if (!covered.to || cycle.end.getTime() !== covered.to.getTime()) return undefined;
  const earlier = await repositories.invoices.finalizedChargesMicros(
    accountId,
    { contractId: contract.id },
    covered.from,
    cycle.end,
    MAX_TERM_INVOICES,
  );
  return sumMicros(earlier.map((invoice) => subMicros(invoice.chargesMicros, invoice.taxMicros)));
}

/**
 * An invoice the service can store (amounts within the money rule), or a 409 saying which figure is out of bounds:
 * the request is valid, the stored contract is what cannot be invoiced (several products above the ceiling together).
 */
export function withinLimits(draft: InvoiceDraftInMicros): InvoiceDraftInMicros {
  const checked = invoiceDraft.safeParse(presentInvoiceDraft(draft));
  if (checked.success) return draft;
  const issues = zodIssues(checked.error);
  const figures = issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ");
  throw conflict(`The invoice is outside the service's limits (${figures})`, issues);
}
