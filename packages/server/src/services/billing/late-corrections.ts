import { createHash } from "node:crypto";
import type { CreditNote, Invoice } from "@billing/shared";
import { ObjectId } from "mongodb";
import type { LateDifference, ProductCharge } from "../../domain/billing/late-usage.js";
import { amountDueOf } from "../../domain/invoices/life.js";
import { assertCreditable, historyOf, refundableAsCreditsMicros } from "../../domain/invoices/settlement.js";
import { asMicros, type Micros, ZERO_MICROS } from "../../domain/money/micros.js";
import type { Repositories } from "../../repositories/index.js";
import type { CallScope } from "../call-scope.js";
import { changeInvoice } from "../invoices/changes.js";

/**
 * Late usage (issue 45), a negative difference: usage of an issued invoice's cycle was lowered (a measurement set a
 * day lower). It is a USAGE_CORRECTION credit note on the original invoice: `OFFSET` up to what it still asks to be
 * paid, the rest as `CREDITS` (up to what was paid and the credits it used, less earlier CREDITS notes).
 */

/** The id of a correction's credit note: derived from the original, the product, the invoice that found it, the way. */
export function correctionNoteId(originalId: string, product: string, foundBy: string, refund: CreditNote["refund"]) {
  const digest = createHash("sha256")
    .update(JSON.stringify([originalId, product, foundBy, refund]))
    .digest();
  return new ObjectId(digest.subarray(0, 12)).toHexString();
}

/**
 * What the original's USAGE_CORRECTION notes made by runs credited, per product (negative), with their units: the
 * next look counts them as it counts LATE_USAGE lines. The notes found by `exceptFoundBy` (the invoice being priced)
 * are left out, as its own LATE_USAGE lines are: its correction is the whole difference, made once by its ids. One
 * read of the original's usage corrections (≤ 100 notes; a billing batch reads its originals' together).
 */
export async function correctedBefore(
  repositories: Repositories,
  accountId: string,
  originalId: string,
  exceptFoundBy: string,
): Promise<Map<string, ProductCharge>> {
  const changes = await repositories.invoiceChanges.usageCorrections(accountId, originalId);
  const corrected = new Map<string, ProductCharge>();
  const unitsCounted = new Set<string>();
  for (const change of changes) {
    if (change.kind !== "CREDIT_NOTE" || !change.adjusts || change.adjusts.foundBy === exceptFoundBy) continue;
    const { product, quantityMicros, foundBy } = change.adjusts;
    const seen = corrected.get(product) ?? { product, name: product, chargedMicros: ZERO_MICROS, quantityMicros: 0n };
    // A correction split in two notes (OFFSET, CREDITS) carries its units on both: counted once.
    const first = !unitsCounted.has(JSON.stringify([product, foundBy]));
    unitsCounted.add(JSON.stringify([product, foundBy]));
    // Before tax: the correction's own figure once (its notes add its tax), else the note's amount.
    const { chargedMicros } = change.adjusts;
    const credited = chargedMicros === undefined ? -change.offset - change.credits : first ? chargedMicros : 0;
    corrected.set(product, {
      ...seen,
      chargedMicros: asMicros(seen.chargedMicros + credited),
      quantityMicros: seen.quantityMicros + (first ? BigInt(quantityMicros) : 0n),
    });
  }
  return corrected;
}

/**
 * Makes the credit notes of one correction (`difference`, negative, found by the invoice `foundBy`), once: each note's
 * id is derived (correctionNoteId) and the change log is looked at before a note is logged, so a repeat (a crash,
 * another instance, a repriced draft) finds it and adds nothing. Refused by the invoice (voided since, 100 notes):
 * logged and left, the invoice as it is. `at`: the server's clock (a credit note made now, whatever past day the run
 * bills as of).
 */
export async function issueCorrection(
  call: CallScope,
  { original, difference, taxMicros }: { original: Invoice; difference: LateDifference; taxMicros: Micros },
  foundBy: string,
  at: Date,
): Promise<void> {
  await issueCreditBack(call, original.id, at, {
    creditMicros: asMicros(-difference.amountMicros + taxMicros),
    idOf: (refund) => correctionNoteId(original.id, difference.product, foundBy, refund),
    reason: "USAGE_CORRECTION",
    adjusts: {
      product: difference.product,
      quantityMicros: String(difference.quantityMicros),
      foundBy,
      chargedMicros: difference.amountMicros,
    },
  });
}

/** What a run gives back on an issued invoice: the amount (tax included), each note's id by its way, and why. */
export interface CreditBack {
  creditMicros: Micros;
  idOf: (refund: CreditNote["refund"]) => string;
  reason: CreditNote["reason"];
  /** A late usage correction's (only those: late-usage.ts counts them as corrections of the product). */
  adjusts?: { product: string; quantityMicros: string; foundBy: string; chargedMicros: Micros };
}

/**
 * Gives `creditMicros` back on the issued invoice `originalId` by credit notes, once: the OFFSET note takes what the
 * invoice still asks (up to the amount), the CREDITS note the rest (up to what was paid and the credits it used, less
 * earlier CREDITS notes), so the two add up to the amount however often this runs (each note's id is derived, and the
 * change log is looked at before a note is logged). Refused by the invoice (voided since, 100 notes): logged and left.
 */
export async function issueCreditBack(call: CallScope, originalId: string, at: Date, back: CreditBack): Promise<void> {
  const { creditMicros, idOf, reason, adjusts } = back;
  for (const refund of ["OFFSET", "CREDITS"] as const) {
    const creditNoteId = idOf(refund);
    try {
      await changeInvoice(call, originalId, async ({ invoice, life }) => {
        const changes = await call.repositories.invoiceChanges.after(call.accountId, invoice.id, 0);
        const noteOf = (id: string) =>
          changes.find((change) => change.kind === "CREDIT_NOTE" && change.creditNoteId === id);
        if (noteOf(creditNoteId)) return undefined;
        const history = historyOf(changes);
        const creditsUsedMicros = life.priced.revenueBreakdown.creditsUsed;
        const offsetNote = noteOf(idOf("OFFSET"));
        const offsetMicros = offsetNote?.kind === "CREDIT_NOTE" ? offsetNote.offset : 0;
        const amountMicros = asMicros(
          refund === "OFFSET"
            ? Math.min(creditMicros, amountDueOf(life))
            : Math.min(creditMicros - offsetMicros, refundableAsCreditsMicros(life, creditsUsedMicros, history)),
        );
        if (amountMicros <= 0) return undefined;
        assertCreditable(life, history, { refund, amountMicros, creditsUsedMicros, currency: invoice.currency });
        return {
          kind: "CREDIT_NOTE" as const,
          at,
          creditNoteId,
          offset: asMicros(refund === "OFFSET" ? amountMicros : 0),
          credits: asMicros(refund === "CREDITS" ? amountMicros : 0),
          reason,
          ...(adjusts && { adjusts }),
        };
      });
    } catch (error) {
      call.log.warn({ err: error, invoiceId: originalId, creditNoteId }, `${reason} credit note not issued`);
      return;
    }
  }
}
