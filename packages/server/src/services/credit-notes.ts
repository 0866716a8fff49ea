import type { CreditNote, CreditNoteCreate } from "@billing/shared";
import { ObjectId } from "mongodb";
import { providerRefundNote } from "../domain/collection/refunds.js";
import { conflict, notFound } from "../domain/errors.js";
import { assertCreditable, historyOf, providerRefundOf } from "../domain/invoices/settlement.js";
import { assertWholeMinorUnits } from "../domain/money/currency.js";
import { ZERO_MICROS } from "../domain/money/micros.js";
import { microsOf } from "../presenters/money.js";
import type { CreditNoteListRequest } from "../repositories/credit-notes.js";
import type { CallScope } from "./call-scope.js";
import { connectedProvider } from "./collection/connections.js";
import { finishProviderRefund } from "./collection/refunds.js";
import { assertGrantFits } from "./credit-ledger.js";
import { changeInvoice, readInvoice } from "./invoices/changes.js";

/**
 * Credits part of a FINALIZED invoice back: one CREDIT_NOTE change of its log (which decides the amount against
 * concurrent payments, voids and other notes), whose effects (services/invoices/effects.ts) write its number,
 * document and grant. Notes of the invoice that a crash left without them are completed by any read of the invoice.
 */
export async function createCreditNote(call: CallScope, input: CreditNoteCreate, now: Date): Promise<CreditNote> {
  if (input.refund === "PROVIDER") return createProviderRefundNote(call, input, now);
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
 * A `PROVIDER` note: logged first, its refund split over the payments the provider collected on the invoice (the
 * invoice's succeeded charges) and decided against the log like any amount (so two notes never refund one payment
 * twice), then made through the provider with a key per note and payment (services/collection/refunds.ts). 409 when no
 * provider is connected or the amount passes what the provider can still refund.
 */
async function createProviderRefundNote(call: CallScope, input: CreditNoteCreate, now: Date): Promise<CreditNote> {
  const charge = await connectedProvider(call);
  if (!charge) throw conflict("No payment provider is connected: a PROVIDER credit note refunds through one");
  const amountMicros = microsOf(input.amount);
  const creditNoteId = new ObjectId().toHexString();
  await changeInvoice(call, input.invoiceId, async ({ invoice, life }) => {
    const changes = await call.repositories.invoiceChanges.after(call.accountId, invoice.id, 0);
    assertWholeMinorUnits(amountMicros, invoice.currency, "amount");
    const attempts = await call.repositories.collectionAttempts.ofInvoice(call.accountId, invoice.id);
    const providerPaymentIds = new Set(
      attempts.flatMap((attempt) =>
        attempt.status === "SUCCEEDED" && attempt.providerPaymentId ? [attempt.providerPaymentId] : [],
      ),
    );
    const refunds = providerRefundOf(life, historyOf(changes), {
      amountMicros,
      creditsUsedMicros: life.priced.revenueBreakdown.creditsUsed,
      currency: invoice.currency,
      providerPaymentIds,
    });
    return providerRefundNote({
      at: now,
      creditNoteId,
      reason: input.reason,
      provider: charge.module.name,
      origin: "API",
      refunds,
    });
  });
  const creditNote = await call.repositories.creditNotes.get(call.accountId, creditNoteId);
  if (!creditNote) throw new Error(`credit note ${creditNoteId} was logged but not written`);
  return finishProviderRefund(call, creditNote, now);
}

/**
 * A page of the account's credit notes (`customerId` resolved by the caller). Listed by invoice, the invoice is read
 * first, so that a note a crash left without its document (services/invoices/effects.ts) is completed and listed.
 */
export async function listCreditNotes(call: CallScope, request: CreditNoteListRequest) {
  if (request.invoiceId !== undefined) await readInvoice(call, request.invoiceId);
  return call.repositories.creditNotes.list(call.accountId, request);
}
