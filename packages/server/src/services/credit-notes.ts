import { type CreditNote, type CreditNoteCreate, toMicros } from "@billing/shared";
import { ObjectId } from "mongodb";
import { notFound } from "../domain/errors.js";
import type { InvoiceChange } from "../domain/invoices/life.js";
import { assertCreditable, historyOf } from "../domain/invoices/settlement.js";
import { assertWholeMinorUnits } from "../domain/money/currency.js";
import type { LoggedInvoiceChange } from "../repositories/invoice-changes.js";
import type { StoredInvoice, StoredPricing } from "../repositories/invoices.js";
import { assertGrantFits, grantCreditNoteCredits } from "./credit-ledger.js";
import { changeInvoice, type InvoiceCall, readInvoice } from "./invoices/changes.js";
import { publishChange } from "./webhook-events.js";

type CreditNoteChange = Extract<InvoiceChange<StoredPricing>, { kind: "CREDIT_NOTE" }>;

/** Credit notes are numbered `CN-000001`, … in the account's own gap-free series. */
const CREDIT_NOTE_PREFIX = "CN";

/**
 * Writes what a logged CREDIT_NOTE change makes: its number (claimed by the note's id: the same however often this
 * runs), its document, and for `CREDITS` its grant; then announces it. Each step is keyed by the note's id, so a
 * completion after a crash writes only what is missing.
 */
async function completeCreditNote(call: InvoiceCall, invoice: StoredInvoice["invoice"], change: CreditNoteChange) {
  const { repositories, accountId, log } = call;
  const { number } = await repositories.documentNumbers.claim({
    accountId,
    series: "CN",
    documentId: change.creditNoteId,
    prefix: CREDIT_NOTE_PREFIX,
  });
  const refund = change.credits > 0 ? "CREDITS" : "OFFSET";
  if (refund === "CREDITS") {
    await grantCreditNoteCredits(call, invoice.customerId, {
      creditNoteId: change.creditNoteId,
      micros: change.credits,
      currency: invoice.currency,
      now: change.at,
    });
  }
  const creditNote = await repositories.creditNotes.insert(
    {
      _id: new ObjectId(change.creditNoteId),
      accountId,
      invoiceId: invoice.id,
      customerId: invoice.customerId,
      number,
      amountMicros: change.offset + change.credits,
      currency: invoice.currency,
      reason: change.reason,
      refund,
    },
    change.at,
  );
  await publishChange(repositories, accountId, log, { type: "credit_note.created", data: creditNote });
  return creditNote;
}

/**
 * Credits part of a FINALIZED invoice back: one CREDIT_NOTE change of its log (which decides the amount against
 * concurrent payments, voids and other notes), then its number, document and grant. Notes of the invoice that a
 * crash left without their document are completed first.
 */
export async function createCreditNote(call: InvoiceCall, input: CreditNoteCreate, now: Date): Promise<CreditNote> {
  const amountMicros = toMicros(input.amount);
  const note = {
    kind: "CREDIT_NOTE" as const,
    at: now,
    creditNoteId: new ObjectId().toHexString(),
    offset: input.refund === "OFFSET" ? amountMicros : 0,
    credits: input.refund === "CREDITS" ? amountMicros : 0,
    reason: input.reason,
  };
  if (input.refund === "CREDITS") {
    // Refused before it is logged when the customer's ledger would refuse its grant (rare: a balance near its
    // ceiling, or 100 open grants): a grant refused after would leave the note without it.
    const current = await readInvoice(call, input.invoiceId);
    if (!current) throw notFound("Invoice");
    await assertGrantFits(call, current.invoice.customerId, amountMicros);
  }
  let earlier: Extract<LoggedInvoiceChange<StoredPricing>, { kind: "CREDIT_NOTE" }>[] = [];
  const stored = await changeInvoice(call, input.invoiceId, async ({ invoice, life }) => {
    const changes = await call.repositories.invoiceChanges.after(call.accountId, invoice.id, 0);
    earlier = changes.filter((change) => change.kind === "CREDIT_NOTE");
    assertWholeMinorUnits(amountMicros, invoice.currency, "amount");
    const creditsUsedMicros = life.priced.revenueBreakdown.creditsUsed;
    assertCreditable(life, historyOf(changes), { refund: input.refund, amountMicros, creditsUsedMicros });
    return note;
  });
  for (const change of earlier) {
    if (!(await call.repositories.creditNotes.get(call.accountId, change.creditNoteId))) {
      await completeCreditNote(call, stored.invoice, change);
    }
  }
  return completeCreditNote(call, stored.invoice, note);
}
