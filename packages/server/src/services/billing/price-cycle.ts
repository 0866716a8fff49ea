import type { ContractInMicros } from "../../domain/billing/contract.js";
import type { InvoiceBasis, PaymentTerms } from "../../domain/billing/invoice.js";
import type { CycleLookup, PlannedInvoice } from "../../domain/billing/items.js";
import {
  type CreditPayment,
  chargeLines,
  composeInvoice,
  type InvoiceDraftInMicros,
} from "../../domain/billing/pipeline.js";
import { thresholdBilledLines } from "../../domain/billing/thresholds.js";
import { minMicros, ZERO_MICROS } from "../../domain/money/micros.js";
import type { Logger } from "../../logger.js";
import type { Repositories } from "../../repositories/index.js";
import { creditsToPay, payableByCredits, payInvoiceFromCredits } from "../credit-ledger.js";
import { issueDueForCustomer } from "../credit-recurrences.js";
import type { TimeBudget } from "../work-budget.js";
import { makeAdjustmentInvoices } from "./adjustment-invoices.js";
import { invoiceBasis, withinLimits } from "./invoice-basis.js";
import { issueCorrection } from "./late-corrections.js";
import { lateUsageOf } from "./late-usage.js";
import { creditSeatRefundRests, hasLateSeatChanges } from "./seat-refunds.js";
import { type ThresholdInvoices, thresholdInvoicesOf } from "./threshold-invoices.js";

/** The debit of a stored invoice: keyed by its id, so that it happens once, and a debit made before is found again. */
export interface CreditDebit {
  invoiceId: string;
  /** false: debit nothing new, only pick up a debit made before (a run told not to spend credits). */
  spend: boolean;
  /** Runs when credits may pay something, before they do (a run notes the payment as pending). */
  beforeDebit?: () => Promise<void>;
  log: Logger;
}

/**
 * What pays a cycle's invoice from credits: nothing; the customer's balance, debited nowhere (previews); or the
 * grants' debit (runs and drafts finalized).
 */
export type CycleCredits = "none" | "balance" | { debit: CreditDebit };

export interface CyclePricing {
  paymentTerms: PaymentTerms;
  /** When it is issued: its due date counts from then (a draft: as if finalized then; finalizing prices again). */
  issuedAt: Date;
  credits: CycleCredits;
  /**
   * A preview reads usage up to the day of `until`, and stops reading once `stop` aborts or its `budget` is spent
   * (see invoiceBasis).
   */
  preview?: { until: Date; stop: AbortSignal; budget?: TimeBudget };
  /**
   * The invoice a run makes or finalizes: it carries the late usage of earlier cycles (late-usage.ts); a lowered one
   * is credited on its original (late-corrections.ts), logged under `log`.
   */
  lateUsage?: {
    invoiceId: string;
    at: Date;
    log: Logger;
    /** The contract has ended (late-after-end.ts): no invoice of its own carries the lines, adjustment invoices do. */
    apart?: boolean;
    /** The contract's cycles as the run planned them once (its originals are looked up there). */
    cycles?: CycleLookup | undefined;
  };
  /** The cycle's threshold invoices, when the caller read them (else read here: nothing without thresholds). */
  thresholds?: ThresholdInvoices;
}

/**
 * The credit step: what the grants pay of what the lines ask. `balance` reads what they could pay; a `debit` pays it
 * from the ledger in burn order, once per invoice id (services/credit-ledger.ts).
 */
function creditPayment(
  repositories: Repositories,
  accountId: string,
  contract: ContractInMicros,
  planned: PlannedInvoice,
  credits: CycleCredits,
): CreditPayment {
  // The grants that may pay it: effective and not expired when its cycle is due, of its currency.
  const invoiceToPay = { issuedAt: planned.dueAt, currency: contract.currency };
  const payable = () => payableByCredits({ repositories, accountId }, contract.customerId, invoiceToPay);
  if (credits === "none") return async () => ZERO_MICROS;
  if (credits === "balance") return async (dueMicros) => minMicros(dueMicros, await payable());
  const { invoiceId, spend, beforeDebit, log } = credits.debit;
  return async (dueMicros) => {
    const scope = { repositories, accountId, log };
    // The recurring grants' periods started by now are issued before they are counted (once, whoever gets there).
    if (spend) await issueDueForCustomer(scope, contract.customerId);
    const credits = await creditsToPay(scope, contract.customerId, invoiceToPay);
    // A ledger with no entry has paid nothing before (no earlier try's debit to find) and has nothing to pay with.
    if (credits.empty) return ZERO_MICROS;
    const available = spend ? credits.payableMicros : ZERO_MICROS;
    const maxMicros = minMicros(available, dueMicros);
    if (maxMicros > 0) await beforeDebit?.();
    const { spentMicros } = await payInvoiceFromCredits(scope, contract.customerId, {
      invoiceId,
      contractId: contract.id,
      ...invoiceToPay,
      maxMicros,
    });
    return spentMicros ?? ZERO_MICROS;
  };
}

/**
 * The one way a contract's cycle is priced, for runs, drafts, previews and simulations alike: its usage read
 * (invoiceBasis), then priceBasis. An invoice with no line (a one-time product after its first cycle) bills nothing:
 * its caller makes no invoice of it.
 */
export async function priceCycle(
  repositories: Repositories,
  accountId: string,
  contract: ContractInMicros,
  planned: PlannedInvoice,
  pricing: CyclePricing,
): Promise<InvoiceDraftInMicros> {
  const { paymentTerms, issuedAt, preview } = pricing;
  const basis = await invoiceBasis(repositories, accountId, contract, planned, { paymentTerms, issuedAt }, preview);
  if (pricing.lateUsage) {
    const { invoiceId, at, log, apart, cycles } = pricing.lateUsage;
    const target = { invoiceId, at, paymentTerms, cycles };
    const late = await lateUsageOf(repositories, accountId, contract, planned, target);
    for (const correction of late.corrections)
      await issueCorrection({ repositories, accountId, log }, correction, invoiceId, new Date());
    if ((late.policy === "ADJUSTMENT_INVOICE" || apart) && late.lines.length > 0) {
      const price = (apart: InvoiceBasis) => priceBasis(repositories, accountId, apart, "none");
      await makeAdjustmentInvoices({ repositories, accountId, log }, basis, late, at, price);
    } else if (late.lines.length > 0) basis.lateUsage = late.lines;
  }
  // Threshold billing: what the cycle's threshold invoices billed is taken off (docs/decisions.md).
  const thresholds = pricing.thresholds ?? (await thresholdInvoicesOf(repositories, accountId, contract, planned));
  if (thresholds.billed.length > 0) basis.thresholdBilled = thresholdBilledLines(thresholds.billed);
  const priced = await priceBasis(repositories, accountId, basis, pricing.credits);
  // Seat refunds the invoice could not take in full: the rest back on their prepaid invoice, once it is final.
  if (pricing.lateUsage && typeof pricing.credits === "object" && hasLateSeatChanges(contract)) {
    const { invoiceId, log } = pricing.lateUsage;
    await creditSeatRefundRests({ repositories, accountId, log }, contract, chargeLines(basis), invoiceId, new Date());
  }
  return priced;
}

/**
 * A cycle's invoice from its usage already read (a simulation reads every cycle's at once): every stage of
 * composeInvoice, the money limits checked before credits pay anything.
 */
export const priceBasis = (
  repositories: Repositories,
  accountId: string,
  basis: InvoiceBasis,
  credits: CycleCredits,
): Promise<InvoiceDraftInMicros> =>
  composeInvoice(basis, {
    check: withinLimits,
    payFromCredits: creditPayment(repositories, accountId, basis.contract, basis.cycle, credits),
  });
