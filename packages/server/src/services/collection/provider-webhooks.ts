import type { PaymentProviderName } from "@billing/shared";
import { billingNow } from "../../billing-clock.js";
import { badRequest, notFound, unauthorized } from "../../domain/errors.js";
import { microsPerMinorUnit } from "../../domain/money/currency.js";
import { asMicros } from "../../domain/money/micros.js";
import { microsOf } from "../../presenters/money.js";
import { attemptIdOf } from "../../repositories/collection-attempts.js";
import type { CallScope } from "../call-scope.js";
import { readInvoice } from "../invoices/changes.js";
import { publishStep, recordCharged } from "./charge.js";
import { recordExternalRefund } from "./external-refunds.js";
import type { ProviderEvent } from "./provider.js";
import { PROVIDERS } from "./providers.js";
import { recordRefundFailure } from "./refunds.js";

const isProvider = (name: string): name is PaymentProviderName => Object.hasOwn(PROVIDERS, name);

/**
 * A provider's webhook for an account: its signature verified with the account's webhook secret (401: unsigned,
 * forged, stale), its event recorded once by its id (a replay changes nothing), then applied to the invoice its
 * metadata names. Events of charges the account did not make (no or another account in the metadata) are taken and
 * ignored. A failure forgets the event, so the provider's next delivery applies it.
 */
export async function receiveProviderWebhook(
  call: CallScope,
  providerName: string,
  rawBody: string,
  signature: string | undefined,
  now: Date,
): Promise<{ received: true; duplicate: boolean }> {
  if (!isProvider(providerName)) throw notFound("Payment provider");
  const module = PROVIDERS[providerName];
  const connection = await call.repositories.paymentProviders.open(call.accountId, providerName);
  if (!connection) throw notFound("Payment provider");
  const event = module.verifiedEvent(connection, rawBody, signature, now);
  if (typeof event === "string") {
    if (event.includes("JSON") || event.includes("not a")) throw badRequest(event);
    throw unauthorized(`The webhook is refused: ${event}`);
  }
  const { providerEvents } = call.repositories;
  if (!(await providerEvents.record(call.accountId, providerName, event.id, event.providerType, now)))
    return { received: true, duplicate: true };
  try {
    await applyEvent(call, providerName, event);
  } catch (error) {
    await providerEvents.forget(call.accountId, providerName, event.id);
    throw error;
  }
  return { received: true, duplicate: false };
}

/**
 * The invoice an event is about: the one its metadata names (our PaymentIntents carry it), else, for a dispute or
 * refund whose object names only the payment, the invoice that payment paid (its transaction id's claim).
 */
async function invoiceIdOf(call: CallScope, event: ProviderEvent): Promise<string | undefined> {
  const { metadata } = event;
  if (metadata.accountId === call.accountId && metadata.invoiceId) return metadata.invoiceId;
  if (metadata.accountId !== undefined || !event.paymentId || event.kind === "PAYMENT_SUCCEEDED") return undefined;
  return (await call.repositories.payments.ofTransaction(call.accountId, event.paymentId))?.invoiceId;
}

/** A dispute the provider closed in the merchant's favour (or withdrew): the invoice's flag is cleared. */
const CLOSED_DISPUTE_STATUSES = new Set(["won", "warning_closed", "closed", "charge_refunded"]);

/** What an event changes: the provider's word on a payment is the truth. */
async function applyEvent(call: CallScope, provider: PaymentProviderName, event: ProviderEvent) {
  const { metadata } = event;
  if (event.kind === "REFUND_UPDATED") {
    // Only our own refunds name their note; one failing after it was accepted marks the note FAILED.
    const { refund } = event;
    if (metadata.accountId !== call.accountId || !metadata.creditNoteId || refund?.status !== "FAILED") return;
    const failureMessage = refund.failureMessage ?? "refund failed";
    await recordRefundFailure(call, metadata.creditNoteId, { refundId: refund.id, failureMessage });
    return;
  }
  const invoiceId = await invoiceIdOf(call, event);
  if (!invoiceId) return;
  const current = await readInvoice(call, invoiceId);
  if (!current) return;
  const { invoice } = current;
  const attemptId = metadata.attempt ? attemptIdOf(invoice.id, Number(metadata.attempt)) : undefined;
  const [kind = "CHARGE", day = metadata.attempt ?? "1"] = (metadata.step ?? "").split(":");
  const step = { kind: kind as "CHARGE" | "RETRY", day: Number(day), at: billingNow(call.accountId).toISOString() };
  const now = new Date();
  switch (event.kind) {
    case "PAYMENT_SUCCEEDED": {
      if (!event.paymentId || event.amountMinor === undefined || invoice.amountDue <= 0) return;
      const micros = event.amountMinor * microsPerMinorUnit(invoice.currency);
      if (attemptId)
        await call.repositories.collectionAttempts.settle(
          attemptId,
          { status: "SUCCEEDED", providerPaymentId: event.paymentId },
          now,
        );
      // A succeeded event for an attempt we believed failed records the payment all the same.
      await recordCharged(
        call,
        { invoiceId: invoice.id, provider },
        event.paymentId,
        Math.min(micros, microsOf(invoice.amountDue)),
      );
      return;
    }
    case "PAYMENT_FAILED": {
      const attempt = attemptId
        ? await call.repositories.collectionAttempts.get(call.accountId, invoice.id, Number(metadata.attempt))
        : undefined;
      if (attempt?.status !== "PENDING") return;
      await call.repositories.collectionAttempts.settle(
        attempt._id,
        { status: "FAILED", failureMessage: event.failureMessage ?? "payment failed" },
        now,
      );
      await publishStep(call, "invoice.payment_failed", invoice, { ...step, failureMessage: event.failureMessage });
      return;
    }
    case "DISPUTED": {
      if (!event.dispute || !event.paymentId) return;
      const dispute = { ...event.dispute, paymentId: event.paymentId };
      const closed = CLOSED_DISPUTE_STATUSES.has(dispute.status);
      await call.repositories.invoices.setDispute(
        call.accountId,
        invoice,
        closed ? undefined : { ...dispute, updatedAt: now.toISOString() },
      );
      const after = (await readInvoice(call, invoice.id))?.invoice ?? invoice;
      await publishStep(call, "invoice.payment_disputed", after, { kind: "DISPUTE", day: 0, at: step.at, dispute });
      return;
    }
    case "REFUNDED": {
      if (!event.paymentId || event.amountMinor === undefined) return;
      const refundedMicros = asMicros(event.amountMinor * microsPerMinorUnit(invoice.currency));
      await recordExternalRefund(call, invoice.id, { provider, paymentId: event.paymentId, refundedMicros }, now);
      return;
    }
    default:
      return;
  }
}
