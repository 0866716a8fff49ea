import type { CreditNote } from "@billing/shared";
import type { InvoiceChange } from "../../domain/invoices/life.js";
import { microsPerMinorUnit } from "../../domain/money/currency.js";
import { asMicros, type Micros } from "../../domain/money/micros.js";
import { microsOf } from "../../presenters/money.js";
import type { ProviderRefundDoc } from "../../presenters/stored-credit-notes.js";
import type { CallScope } from "../call-scope.js";
import { publishChange } from "../webhook-events.js";
import { connectedProvider } from "./connections.js";
import { ProviderUnavailableError } from "./provider.js";

type LoggedRefund = NonNullable<Extract<InvoiceChange<unknown>, { kind: "CREDIT_NOTE" }>["providerRefund"]>;

/** How long a refund whose answer was not known waits for the collection run to make it again. */
export const REFUND_RETRY_MS = 10 * 60_000;

/** The key of a note's refund of one payment at the provider: the same when it is made again after a crash. */
export const refundKeyOf = (accountId: string, creditNoteId: string, paymentId: string) =>
  `billing-${accountId}-credit-note-${creditNoteId}-refund-${paymentId}`;

/** The credit note's refund as first stored: ours to make (PENDING), or made at the provider already. */
export const providerRefundDocOf = ({ provider, origin, refunds }: LoggedRefund): ProviderRefundDoc => ({
  provider: provider as ProviderRefundDoc["provider"],
  origin,
  status: origin === "PROVIDER" ? "SUCCEEDED" : "PENDING",
  refunds: refunds.map(({ paymentId, micros }) => ({ paymentId, micros })),
});

const docOf = (refund: NonNullable<CreditNote["providerRefund"]>): ProviderRefundDoc => ({
  ...refund,
  refunds: refund.refunds.map(({ amount, ...share }) => ({ ...share, micros: microsOf(amount) })),
});

/**
 * Makes a PENDING `PROVIDER` note's refunds: one provider refund per payment share, each with a key derived from the
 * note and payment (made again after a crash or time-out, the provider refunds once), then SUCCEEDED or FAILED
 * (the provider refused one: the note stands, its `failureMessage` says why) and announced once. When the provider
 * cannot be reached the note stays PENDING and its invoice is looked at again by the collection run.
 */
export async function finishProviderRefund(call: CallScope, note: CreditNote, now: Date): Promise<CreditNote> {
  const { repositories, accountId, log } = call;
  if (note.providerRefund?.status !== "PENDING") return note;
  const refund = docOf(note.providerRefund);
  const charge = await connectedProvider(call);
  let failureMessage = charge ? undefined : "no payment provider is connected";
  for (const share of refund.refunds) {
    if (!charge || failureMessage) break;
    if (share.refundId !== undefined) continue;
    try {
      const outcome = await charge.module.refund(charge.connection, {
        paymentId: share.paymentId,
        amountMinor: Math.round(share.micros / microsPerMinorUnit(note.currency)),
        idempotencyKey: refundKeyOf(accountId, note.id, share.paymentId),
        metadata: { accountId, creditNoteId: note.id },
      });
      if (outcome.status === "FAILED") failureMessage = outcome.failureMessage;
      else share.refundId = outcome.refundId;
    } catch (error) {
      if (!(error instanceof ProviderUnavailableError)) throw error;
      log.warn({ err: error, creditNoteId: note.id }, "refund outcome unknown: kept pending");
      await repositories.creditNotes.setProviderRefund(accountId, note.id, refund);
      const stored = await repositories.invoices.getStored(accountId, note.invoiceId);
      const dueDate = stored ? new Date(stored.invoice.dueDate) : now;
      const invoice = { _id: note.invoiceId, accountId, customerId: note.customerId, dueDate };
      await repositories.invoiceCollections.wake(invoice, new Date(now.getTime() + REFUND_RETRY_MS), new Date());
      return (await repositories.creditNotes.get(accountId, note.id)) ?? note;
    }
  }
  const finished: ProviderRefundDoc = failureMessage
    ? { ...refund, status: "FAILED", failureMessage }
    : { ...refund, status: "SUCCEEDED" };
  const stored = (await repositories.creditNotes.setProviderRefund(accountId, note.id, finished)) ?? note;
  const type = failureMessage ? "credit_note.refund_failed" : "credit_note.refunded";
  await publishChange(repositories, accountId, log, { type, data: stored });
  return stored;
}

/** The invoice's `PROVIDER` notes still PENDING, made now (the collection run); whether any is still pending. */
export async function finishPendingRefunds(call: CallScope, invoiceId: string, now: Date): Promise<boolean> {
  let left = false;
  for (const note of await call.repositories.creditNotes.ofInvoice(call.accountId, invoiceId)) {
    if (note.providerRefund?.status !== "PENDING") continue;
    const finished = await finishProviderRefund(call, note, now);
    if (finished.providerRefund?.status === "PENDING") left = true;
  }
  return left;
}

/**
 * The provider's word that one of our refunds failed (or was canceled) after it accepted it (Stripe's
 * `charge.refund.updated`): the note's share is marked failed and the note FAILED with the provider's reason,
 * announced as `credit_note.refund_failed` (once per note). A refund the note does not hold, or a share already
 * marked, changes nothing. The note stands in the log, as a note the provider refused at once does.
 */
export async function recordRefundFailure(
  call: CallScope,
  creditNoteId: string,
  { refundId, failureMessage }: { refundId: string; failureMessage: string },
) {
  const note = await call.repositories.creditNotes.get(call.accountId, creditNoteId);
  const share = note?.providerRefund?.refunds.find((refund) => refund.refundId === refundId);
  if (!note?.providerRefund || !share || share.failed) return;
  const refund = docOf(note.providerRefund);
  const failed: ProviderRefundDoc = {
    ...refund,
    status: "FAILED",
    failureMessage,
    refunds: refund.refunds.map((item) => (item.refundId === refundId ? { ...item, failed: true as const } : item)),
  };
  const stored = await call.repositories.creditNotes.setProviderRefund(call.accountId, note.id, failed);
  if (stored)
    await publishChange(call.repositories, call.accountId, call.log, {
      type: "credit_note.refund_failed",
      data: stored,
    });
}

/**
 * What the log holds as refunded of a provider payment, less the shares of FAILED notes never made or failed after
 * they were made (money the provider did not return).
 */
export async function refundedOfPayment(
  call: CallScope,
  invoiceId: string,
  paymentId: string,
  logged: number,
): Promise<Micros> {
  let unmade = 0;
  for (const note of await call.repositories.creditNotes.ofInvoice(call.accountId, invoiceId)) {
    if (note.providerRefund?.status !== "FAILED") continue;
    for (const share of note.providerRefund.refunds)
      if (share.paymentId === paymentId && (share.refundId === undefined || share.failed))
        unmade += microsOf(share.amount);
  }
  return asMicros(logged - unmade);
}
