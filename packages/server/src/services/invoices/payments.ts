import type { Payment, PaymentCreate } from "@billing/shared";
import { ObjectId } from "mongodb";
import { billingNow } from "../../billing-clock.js";
import { conflict, notFound } from "../../domain/errors.js";
import type { RecordedPayment } from "../../domain/invoices/life.js";
import { assertPayable, historyOf } from "../../domain/invoices/settlement.js";
import { assertWholeMinorUnits } from "../../domain/money/currency.js";
import { amountOf, microsOf } from "../../presenters/money.js";
import type { LoggedInvoiceChange } from "../../repositories/invoice-changes.js";
import type { StoredInvoice, StoredPricing } from "../../repositories/invoices.js";
import type { TransactionClaim } from "../../repositories/payments.js";
import type { CallScope } from "../call-scope.js";
import { changeInvoice, readInvoice } from "./changes.js";

/** A payment as the API shows it: recorded by the change `at`, on the invoice. */
const paymentOf = (
  invoiceId: string,
  { paymentId, amount, date, provider: _provider, ...fields }: RecordedPayment,
  at: Date,
): Payment => ({
  id: paymentId,
  invoiceId,
  amount: amountOf(amount),
  date: date.toISOString(),
  ...fields,
  createdAt: at.toISOString(),
});

/** The invoice's logged changes (at most its payments, its credit notes and two more: bounded). */
const changesOf = (call: CallScope, invoiceId: string) =>
  call.repositories.invoiceChanges.after(call.accountId, invoiceId, 0);

const alreadyRecorded = (transactionId: string) =>
  conflict(`transactionId ${transactionId} is already recorded on this account`, [
    { path: "transactionId", message: "already recorded" },
  ]);

/**
 * The payment this request records: a new one, or, when its transaction id is claimed by a payment of the same
 * invoice and amount that no change recorded (its request stopped after claiming), that one, which this completes.
 * 409 when the transaction id is another payment's or already recorded.
 */
async function claimedPayment(call: CallScope, invoiceId: string, payment: RecordedPayment) {
  const { transactionId } = payment;
  if (transactionId === undefined) return { payment, claim: undefined };
  const claim = { _id: new ObjectId(), accountId: call.accountId, transactionId, invoiceId };
  const outcome = await call.repositories.payments.claimTransaction({
    ...claim,
    paymentId: payment.paymentId,
    amountMicros: payment.amount,
  });
  if (outcome.claimed) return { payment, claim };
  const holder: TransactionClaim | undefined = outcome.holder;
  const recorded = holder && historyOf(await changesOf(call, holder.invoiceId)).paymentIds.has(holder.paymentId);
  if (!holder || recorded || holder.invoiceId !== invoiceId || holder.amountMicros !== payment.amount) {
    throw alreadyRecorded(transactionId);
  }
  return { payment: { ...payment, paymentId: holder.paymentId }, claim: undefined };
}

/**
 * Records a payment of a FINALIZED invoice, at most its amount due: one PAYMENT change of its log (which decides it
 * against concurrent payments, voids and credit notes). A transaction id is claimed first, by a unique insert, and
 * given up again when the payment is refused. `provider`: a payment the provider confirmed (services/collection).
 */
export async function recordPayment(
  call: CallScope,
  { invoiceId, amount, date, ...fields }: PaymentCreate,
  now: Date,
  provider?: string,
): Promise<{ invoice: StoredInvoice["invoice"]; payment: Payment }> {
  const current = await readInvoice(call, invoiceId);
  if (!current) throw notFound("Invoice");
  const asked: RecordedPayment = {
    paymentId: new ObjectId().toHexString(),
    amount: microsOf(amount),
    date: date === undefined ? billingNow(call.accountId, now) : new Date(date),
    ...fields,
    ...(provider !== undefined && { provider }),
  };
  // Refused before anything is claimed when it already is refused.
  assertWholeMinorUnits(asked.amount, current.invoice.currency, "amount");
  assertPayable(
    current.life,
    historyOf(await changesOf(call, current.invoice.id)),
    asked.amount,
    current.invoice.currency,
  );
  const { payment, claim } = await claimedPayment(call, current.invoice.id, asked);
  try {
    const stored = await changeInvoice(call, current.invoice.id, async ({ invoice, life }) => {
      const history = historyOf(await changesOf(call, invoice.id));
      if (history.paymentIds.has(payment.paymentId)) throw alreadyRecorded(payment.transactionId ?? payment.paymentId);
      assertPayable(life, history, payment.amount, invoice.currency);
      return { kind: "PAYMENT", at: now, payment };
    });
    return { invoice: stored.invoice, payment: paymentOf(stored.invoice.id, payment, now) };
  } catch (error) {
    // Given back only when no request recorded this payment: another request sending the same transaction id may
    // have completed it under this claim (claimedPayment), and then the transaction is taken for good.
    const recorded = claim && historyOf(await changesOf(call, current.invoice.id)).paymentIds.has(payment.paymentId);
    if (claim && !recorded) await call.repositories.payments.releaseTransaction(claim);
    throw error;
  }
}

/** The invoice's payments in the order recorded; 404 for no invoice of the account. */
export async function paymentsOf(call: CallScope, invoiceId: string): Promise<Payment[]> {
  const current = await readInvoice(call, invoiceId);
  if (!current) throw notFound("Invoice");
  const changes = (await changesOf(call, current.invoice.id)) as LoggedInvoiceChange<StoredPricing>[];
  return changes.flatMap((change) =>
    change.kind === "PAYMENT" ? [paymentOf(current.invoice.id, change.payment, change.at)] : [],
  );
}
