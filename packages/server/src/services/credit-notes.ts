import type { CreditNote, CreditNoteCreate } from "@billing/shared";
import { ObjectId } from "mongodb";
import { notFound } from "../domain/errors.js";
import { assertCreditable, historyOf } from "../domain/invoices/settlement.js";
import { assertWholeMinorUnits } from "../domain/money/currency.js";
import { ZERO_MICROS } from "../domain/money/micros.js";
import { microsOf } from "../presenters/money.js";
import type { CreditNoteListRequest } from "../repositories/credit-notes.js";
import type { CallScope } from "./call-scope.js";
import { assertGrantFits } from "./credit-ledger.js";
import { changeInvoice, readInvoice } from "./invoices/changes.js";

/**
 * Credits part of a FINALIZED invoice back: one CREDIT_NOTE change of its log (which decides the amount against
 * concurrent payments, voids and other notes), whose effects (services/invoices/effects.ts) write its number,
 * document and grant. Notes of the invoice that a crash left without them are completed by any read of the invoice.
 */
export async function createCreditNote(call: CallScope, input: CreditNoteCreate, now: Date): Promise<CreditNote> {
  const amountMicros = microsOf(input.amount);
  const note = {
    kind: "CREDIT_NOTE" as const,
    at: now,
    creditNoteId: new ObjectId().toHexString(),
    offset: input.refund === "OFFSET" ? amountMicros : ZERO_MICROS,
    credits: input.refund === "CREDITS" ? amountMicros : ZERO_MICROS,
    reason: input.reason,
  };
  if (input.refund === "CREDITS") {
    // Refused before it is logged when the customer's ledger would refuse its grant (rare: a balance near its
    // ceiling, or 100 open grants): a grant refused after would leave the note without it.
    const current = await readInvoice(call, input.invoiceId);
    if (!current) throw notFound("Invoice");
    await assertGrantFits(call, current.invoice.customerId, amountMicros);
  }
  await changeInvoice(call, input.invoiceId, async ({ invoice, life }) => {
    const changes = await call.repositories.invoiceChanges.after(call.accountId, invoice.id, 0);
    assertWholeMinorUnits(amountMicros, invoice.currency, "amount");
    const creditsUsedMicros = life.priced.revenueBreakdown.creditsUsed;
    assertCreditable(life, historyOf(changes), {
      refund: input.refund,
      amountMicros,
      creditsUsedMicros,
      currency: invoice.currency,
    });
    return note;
  });
  const creditNote = await call.repositories.creditNotes.get(call.accountId, note.creditNoteId);
  if (!creditNote) throw new Error(`credit note ${note.creditNoteId} was logged but not written`);
  return creditNote;
}

/**
 * A page of the account's credit notes (`customerId` resolved by the caller). Listed by invoice, the invoice is read
 * first, so that a note a crash left without its document (services/invoices/effects.ts) is completed and listed.
 */
export async function listCreditNotes(call: CallScope, request: CreditNoteListRequest) {
  if (request.invoiceId !== undefined) await readInvoice(call, request.invoiceId);
  return call.repositories.creditNotes.list(call.accountId, request);
}
