import type { CreditNote } from "@billing/shared";
import { ObjectId } from "mongodb";
import type { InvoiceChange } from "../../domain/invoices/life.js";
import { asMicros } from "../../domain/money/micros.js";
import { correctionAdjustment } from "../../presenters/invoice-adjustments.js";
import type { LoggedInvoiceChange } from "../../repositories/invoice-changes.js";
import type { StoredInvoice, StoredPricing } from "../../repositories/invoices.js";
import type { CallScope } from "../call-scope.js";
import { openCollection } from "../collection/open.js";
import { providerRefundDocOf } from "../collection/refunds.js";
import { grantCreditNoteCredits, returnInvoiceCredits } from "../credit-ledger.js";
import { publishChange } from "../webhook-events.js";

type Applicable = InvoiceChange<StoredPricing> & { n: number };
type CreditNoteChange = Extract<InvoiceChange<StoredPricing>, { kind: "CREDIT_NOTE" }>;

/** Credit notes are numbered `CN-000001`, … in the account's own gap-free series. */
const CREDIT_NOTE_PREFIX = "CN";

/**
 * The number of a logged FINALIZE or NUMBER: claimed by the invoice's id (the same one however often this runs: a
 * second claim finds the first by the unique (series, document) index), with the account's prefix of the moment. It
 * is not noted on the log entry (a write per invoice a month-end would pay): the invoice's life holds it once applied,
 * and applying the entry again after a crash reads the claim. Entries logged before kept their number.
 */
async function numbered(
  { repositories, accountId }: CallScope,
  invoiceId: string,
  change: Extract<LoggedInvoiceChange<StoredPricing>, { kind: "FINALIZE" | "NUMBER" }>,
): Promise<Applicable> {
  if (change.number !== undefined) return change as Applicable;
  const account = await repositories.accounts.get(accountId);
  if (!account) throw new Error(`account ${accountId} of invoice ${invoiceId} not found`);
  const { number } = await repositories.documentNumbers.claim({
    accountId,
    series: "INV",
    documentId: invoiceId,
    prefix: account.invoicePrefix,
  });
  return { ...change, number };
}

/**
 * The call with these invoices' numbers claimed together (documentNumbers.claimMany: one insert for a billing batch's
 * finalizations, in their order), for `numbered` to take; an invoice whose number was lost to another claims alone.
 * Only for invoices whose FINALIZE was just logged: none holds a number yet.
 */
export async function withNumbersClaimed(call: CallScope, invoiceIds: string[]): Promise<CallScope> {
  const { repositories, accountId } = call;
  if (invoiceIds.length === 0) return call;
  const account = await repositories.accounts.get(accountId);
  if (!account) throw new Error(`account ${accountId} not found`);
  const claimed = await repositories.documentNumbers.claimMany({
    accountId,
    series: "INV",
    documentIds: invoiceIds,
    prefix: account.invoicePrefix,
  });
  const { documentNumbers } = repositories;
  const claim: typeof documentNumbers.claim = async (request) =>
    (request.series === "INV" && claimed.get(request.documentId)) || documentNumbers.claim(request);
  return { ...call, repositories: { ...repositories, documentNumbers: { ...documentNumbers, claim } } };
}

/**
 * Writes what a logged CREDIT_NOTE makes: its number (claimed by the note's id), for `CREDITS` its grant, and its
 * document; then announces it. Each step is keyed by the note's id, so a completion after a crash writes only what
 * is missing.
 */
async function writeCreditNote(call: CallScope, invoice: StoredInvoice["invoice"], change: CreditNoteChange) {
  const { repositories, accountId, log } = call;
  if (await repositories.creditNotes.get(accountId, change.creditNoteId)) return;
  const { number } = await repositories.documentNumbers.claim({
    accountId,
    series: "CN",
    documentId: change.creditNoteId,
    prefix: CREDIT_NOTE_PREFIX,
  });
  const refund: CreditNote["refund"] = change.providerRefund ? "PROVIDER" : change.credits > 0 ? "CREDITS" : "OFFSET";
  const refunded = (change.providerRefund?.refunds ?? []).reduce((sum, share) => sum + share.micros, 0);
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
      amountMicros: asMicros(change.offset + change.credits + refunded),
      currency: invoice.currency,
      reason: change.reason,
      refund,
      ...(change.providerRefund && { providerRefund: providerRefundDocOf(change.providerRefund) }),
      // A refund made at the provider itself (its dashboard) ended as it was logged.
      ...(change.providerRefund?.origin === "PROVIDER" && { refundSettledAt: change.at }),
      ...(change.adjusts && { adjusts: change.adjusts }),
    },
    change.at,
  );
  await publishChange(repositories, accountId, log, { type: "credit_note.created", data: creditNote });
  const adjustment = correctionAdjustment(creditNote);
  if (adjustment) await publishChange(repositories, accountId, log, { type: "invoice.adjusted", data: adjustment });
}

/**
 * What a logged change writes beyond the invoice, before the invoice takes it (so that an invoice behind its log is
 * what tells a crash left them undone, and the next read, list or run does them): a FINALIZE's number, a VOID's
 * credits given back to their grants, a CREDIT_NOTE's number, grant and document. Each is written once however often
 * this runs. Returns the change as it takes effect (a FINALIZE with its number).
 */
export async function writeEffects(
  call: CallScope,
  invoice: StoredInvoice["invoice"],
  change: LoggedInvoiceChange<StoredPricing>,
): Promise<Applicable> {
  switch (change.kind) {
    case "FINALIZE":
      // An invoice with something to pay is collected from its finalization on (services/collection/).
      if (change.totalMicros > 0)
        await openCollection(call, invoice, { dueDate: change.priced.dueDate ?? change.at, at: change.at });
      return numbered(call, invoice.id, change);
    case "NUMBER":
      return numbered(call, invoice.id, change);
    case "VOID":
      await returnInvoiceCredits(call, invoice.customerId, invoice.id);
      return change;
    case "CREDIT_NOTE":
      await writeCreditNote(call, invoice, change);
      return change;
    case "PAYMENT":
    case "UNCOLLECTIBLE":
      return change;
  }
}
