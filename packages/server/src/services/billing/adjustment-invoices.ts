import type { Invoice } from "@billing/shared";
import type { InvoiceBasis, PricedLine } from "../../domain/billing/invoice.js";
import type { InvoiceDraftInMicros } from "../../domain/billing/pipeline.js";
import type { CallScope } from "../call-scope.js";
import { finalizeInvoice } from "../invoices/finalize.js";
import { publishChange } from "../webhook-events.js";
import { invoiceIdFor } from "./invoice-id.js";
import type { LateUsage } from "./late-usage.js";

/** The most adjustment invoices one carrier cycle makes of one original (a late batch per run each). */
const MAX_ADJUSTMENTS_PER_CYCLE = 100;

/** The key of the n-th adjustment invoice of `originalId` made by the run of the contract's cycle `cycleKey`. */
export const adjustmentKey = (cycleKey: string, originalId: string, n: number) =>
  `${cycleKey}/adjusts/${originalId}/${n}`;

/**
 * The basis of an adjustment invoice: only the LATE_USAGE lines of one original, priced on the original's terms
 * already (late-usage.ts), taxed by their rate codes; no charge of the carrier cycle, no commitment, no coupon.
 */
function adjustmentBasis(basis: InvoiceBasis, lines: PricedLine[]): InvoiceBasis {
  const { minimumCommitment: _, ...contract } = basis.contract;
  return {
    contract,
    cycle: { ...basis.cycle, charges: [] },
    usage: [],
    issuedAt: basis.issuedAt,
    paymentTerms: basis.paymentTerms,
    tax: basis.tax,
    lateUsage: lines,
  };
}

/**
 * ADJUSTMENT_INVOICE (issue 45): one invoice per original of `late`'s lines, apart from the carrier cycle's own
 * (`kind: "ADJUSTMENT"`, `adjusts`: the original, its billing cycle the original's), numbered in the account's
 * sequence and finalized at `at` at once, announced like any (`invoice.created`, `invoice.finalized`, and
 * `invoice.adjusted` on the original by its LATE_USAGE lines). Once: its id is derived from
 * `adjustmentKey(carrier cycle, original, n)`, n the first free place (point reads of 1, 2, … until one is missing:
 * made only when a positive difference was found, so a run with nothing late reads nothing here); two instances
 * pricing the same run insert the same id and one wins; a later run counts it among the originals' adjustments
 * (late-usage.ts reads the contract's invoices in the window, drafts too), so a second late batch makes the n+1-th,
 * incremental. Not paid from credits (as threshold invoices): `price` is price-cycle.ts's priceBasis without them.
 * The ids made.
 */
export async function makeAdjustmentInvoices(
  call: CallScope,
  basis: InvoiceBasis,
  late: LateUsage,
  at: Date,
  price: (basis: InvoiceBasis) => Promise<InvoiceDraftInMicros>,
): Promise<string[]> {
  const { repositories, accountId, log } = call;
  const contract = basis.contract;
  const made: string[] = [];
  for (const [originalId, original] of late.originals) {
    const lines = late.lines.filter((line) => line.adjusts?.invoiceId === originalId);
    if (lines.length === 0) continue;
    let n = 1;
    const idOf = (place: number) =>
      invoiceIdFor(accountId, contract.id, adjustmentKey(basis.cycle.key, originalId, place));
    while (n < MAX_ADJUSTMENTS_PER_CYCLE && (await repositories.invoices.get(accountId, idOf(n).toHexString()))) n += 1;
    const draft = await price(adjustmentBasis(basis, lines));
    const adjustment = {
      ...draft,
      name: `${contract.name}: late usage of ${nameOf(original)}`,
      billingCycle: original.billingCycle,
      kind: "ADJUSTMENT" as const,
      adjusts: originalId,
    };
    const id = idOf(n);
    const { created, stored } = await repositories.invoices.insert(accountId, adjustment, {
      id,
      cycleKey: adjustmentKey(basis.cycle.key, originalId, n),
      // It priced no usage of its own: what it adjusts was read for the original's cycle (late-usage.ts).
      meterKeys: [],
      finalizesAt: at,
      pricedAt: at,
    });
    if (!created) continue;
    const finalized = await finalizeInvoice(call, id.toHexString(), { at, ifDraft: true, known: stored });
    await publishChange(repositories, accountId, log, { type: "invoice.created", data: finalized.invoice });
    made.push(finalized.invoice.id);
  }
  return made;
}

const nameOf = (original: Invoice) => original.number ?? original.id;
