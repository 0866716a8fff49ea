import { type CreditNote, fromMicros, MAX_CREDIT_NOTES_PER_INVOICE, MAX_PAYMENTS_PER_INVOICE } from "@billing/shared";
import { allocateRefund, refundableShares } from "../collection/refunds.js";
import { conflict } from "../errors.js";
import { addMicros, asMicros, type Micros, ZERO_MICROS } from "../money/micros.js";
import { amountDueOf, type InvoiceChange, type InvoiceLife, type ProviderRefundShare } from "./life.js";
import { assertLegalChange } from "./status.js";

/** What an invoice's change log holds beyond its life: its payments and what its credit notes gave back. */
export interface InvoiceHistory {
  paymentIds: Set<string>;
  creditNotes: number;
  /** What `CREDITS` notes gave back as credits so far, in micro-units. */
  refundedAsCreditsMicros: Micros;
  /** What `PROVIDER` notes refunded so far, in all and per provider payment (its transaction id). */
  refundedToProviderMicros: Micros;
  providerRefunded: Map<string, number>;
  /** The payments recorded with a transaction id, in log order: what each paid. */
  paidByTransaction: Map<string, number>;
  /** The transaction ids of the payments a provider collected (its charges, its Checkout payments). */
  providerPaid: Set<string>;
}

/** A logged change as the history reads it: only payments and credit notes count. */
type HistoryEntry =
  | Extract<InvoiceChange<unknown>, { kind: "PAYMENT" | "CREDIT_NOTE" }>
  | { kind: "FINALIZE" | "NUMBER" | "VOID" | "UNCOLLECTIBLE" };

export function historyOf(changes: readonly HistoryEntry[]): InvoiceHistory {
  const history: InvoiceHistory = {
    paymentIds: new Set(),
    creditNotes: 0,
    refundedAsCreditsMicros: ZERO_MICROS,
    refundedToProviderMicros: ZERO_MICROS,
    providerRefunded: new Map(),
    paidByTransaction: new Map(),
    providerPaid: new Set(),
  };
  for (const change of changes) {
    if (change.kind === "PAYMENT") {
      history.paymentIds.add(change.payment.paymentId);
      const { transactionId, amount } = change.payment;
      if (transactionId !== undefined)
        history.paidByTransaction.set(transactionId, (history.paidByTransaction.get(transactionId) ?? 0) + amount);
      if (transactionId !== undefined && change.payment.provider !== undefined) history.providerPaid.add(transactionId);
    }
    if (change.kind === "CREDIT_NOTE") {
      history.creditNotes += 1;
      history.refundedAsCreditsMicros = asMicros(history.refundedAsCreditsMicros + change.credits);
      for (const { paymentId, micros } of change.providerRefund?.refunds ?? []) {
        history.refundedToProviderMicros = addMicros(history.refundedToProviderMicros, micros);
        history.providerRefunded.set(paymentId, (history.providerRefunded.get(paymentId) ?? 0) + micros);
      }
    }
  }
  return history;
}

/** An amount in a message, with the invoice's currency: `2.75 EUR`. */
const inCurrency = (micros: number, currency: string) => `${fromMicros(micros)} ${currency}`;

/** A payment of `amountMicros` may be recorded: a FINALIZED invoice, at most its amount due; else a 409. */
export function assertPayable(
  life: InvoiceLife<unknown>,
  history: InvoiceHistory,
  amountMicros: Micros,
  currency: string,
): void {
  assertLegalChange(life.status, "PAYMENT");
  if (history.paymentIds.size >= MAX_PAYMENTS_PER_INVOICE) {
    throw conflict(`The invoice already has ${MAX_PAYMENTS_PER_INVOICE} payments, the most one invoice takes`);
  }
  const due = amountDueOf(life);
  if (amountMicros <= due) return;
  throw conflict(
    `amount ${inCurrency(amountMicros, currency)} is more than the amount due, ${inCurrency(due, currency)}`,
    [{ path: "amount", message: `at most the amount due, ${fromMicros(due)}` }],
  );
}

/**
 * The invoice may be voided: a DRAFT, or a FINALIZED invoice with nothing paid and no credits given back by a
 * `CREDITS` note (its void gives back the credits it used: they would be given twice); else a 409.
 */
export function assertVoidable(life: InvoiceLife<unknown>, history: InvoiceHistory, currency: string): void {
  assertLegalChange(life.status, "VOID");
  if (life.amountPaid > 0) {
    throw conflict(
      `The invoice is FINALIZED with ${inCurrency(life.amountPaid, currency)} paid: it cannot become VOIDED`,
      [{ path: "status", message: "is FINALIZED with payments, must have none to become VOIDED" }],
    );
  }
  if (history.refundedAsCreditsMicros > 0) {
    const refunded = inCurrency(history.refundedAsCreditsMicros, currency);
    throw conflict(
      `The invoice is FINALIZED and a CREDITS credit note gave back ${refunded}: it cannot become VOIDED`,
      [{ path: "status", message: "is FINALIZED with CREDITS credit notes, must have none to become VOIDED" }],
    );
  }
}

/**
 * The most a `CREDITS` note may give back: what was paid plus the credits used, less what earlier `CREDITS` and
 * `PROVIDER` notes gave back (money refunded to the card is not given again as credits).
 */
export const refundableAsCreditsMicros = (
  life: InvoiceLife<unknown>,
  creditsUsedMicros: Micros,
  history: InvoiceHistory,
): number => life.amountPaid + creditsUsedMicros - history.refundedAsCreditsMicros - history.refundedToProviderMicros;

/**
 * What a `PROVIDER` note may refund and how it splits: at most what the provider collected on the invoice (the
 * payments whose transaction id is one of `providerPaymentIds` or was recorded as the provider's) less earlier refunds
 * of those payments, and never more than a `CREDITS` note could still give back; else a 409 naming `amount`.
 * Example: 120.00 charged by card, a 20.00 CREDITS note, then PROVIDER 100.00 fits (120.00 − 20.00 = 100.00), 100.01
 * is refused.
 */
export function providerRefundOf(
  life: InvoiceLife<unknown>,
  history: InvoiceHistory,
  {
    amountMicros,
    creditsUsedMicros,
    currency,
    providerPaymentIds,
  }: { amountMicros: Micros; creditsUsedMicros: Micros; currency: string; providerPaymentIds: ReadonlySet<string> },
): ProviderRefundShare[] {
  assertCreditable(life, history, { refund: "OFFSET", amountMicros: ZERO_MICROS, creditsUsedMicros, currency });
  const collected = new Map(
    [...history.paidByTransaction].filter(([id]) => providerPaymentIds.has(id) || history.providerPaid.has(id)),
  );
  const refundable = refundableShares(collected, history.providerRefunded);
  const providerLeft = refundable.reduce((sum, share) => sum + share.micros, 0);
  const limit = Math.min(providerLeft, refundableAsCreditsMicros(life, creditsUsedMicros, history));
  if (amountMicros > limit) {
    throw conflict(
      `amount ${inCurrency(amountMicros, currency)} is more than the payment provider collected on the invoice, ` +
        `less earlier refunds and CREDITS notes, ${inCurrency(Math.max(0, limit), currency)}`,
      [{ path: "amount", message: `at most ${fromMicros(Math.max(0, limit))} for refund PROVIDER` }],
    );
  }
  return allocateRefund(refundable, amountMicros);
}

/** A credit note may be made: a FINALIZED invoice, and an amount within its refund's limit; else a 409. */
export function assertCreditable(
  life: InvoiceLife<unknown>,
  history: InvoiceHistory,
  {
    refund,
    amountMicros,
    creditsUsedMicros,
    currency,
  }: { refund: CreditNote["refund"]; amountMicros: Micros; creditsUsedMicros: Micros; currency: string },
): void {
  assertLegalChange(life.status, "CREDIT_NOTE");
  if (history.creditNotes >= MAX_CREDIT_NOTES_PER_INVOICE) {
    throw conflict(`The invoice already has ${MAX_CREDIT_NOTES_PER_INVOICE} credit notes, the most one invoice takes`);
  }
  const [limit, what] =
    refund === "OFFSET"
      ? [amountDueOf(life), "the amount due"]
      : [
          refundableAsCreditsMicros(life, creditsUsedMicros, history),
          "what was paid plus the credits used, less earlier CREDITS and PROVIDER notes",
        ];
  if (amountMicros <= limit) return;
  throw conflict(`amount ${inCurrency(amountMicros, currency)} is more than ${what}, ${inCurrency(limit, currency)}`, [
    { path: "amount", message: `at most ${fromMicros(limit)} for refund ${refund}` },
  ]);
}
