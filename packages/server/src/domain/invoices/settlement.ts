import {
  type CreditNoteCreate,
  fromMicros,
  MAX_CREDIT_NOTES_PER_INVOICE,
  MAX_PAYMENTS_PER_INVOICE,
} from "@billing/shared";
import { conflict, type DomainError } from "../errors.js";

/** Where an invoice is in its life, and what it owes. */
export type InvoiceStatus = "DRAFT" | "FINALIZED" | "VOIDED";
export type BillingStatus = "None" | "PartiallyPaid" | "Paid";

/** What payments, voids and credit notes are judged against. Amounts in micro-units. */
export interface InvoiceBalance {
  status: InvoiceStatus;
  /** What the invoice asks for: its total, credits used already taken off. */
  totalMicros: number;
  paidMicros: number;
  /** What `OFFSET` credit notes took off what is owed. */
  creditedMicros: number;
  /** What credits (the ledger) paid of it at finalization. */
  creditsUsedMicros: number;
  /** What `CREDITS` credit notes gave back as credits so far. */
  refundedAsCreditsMicros: number;
  payments: number;
  creditNotes: number;
}

/** What is still owed: total − paid − credited; a voided invoice owes nothing. */
export const amountDueMicros = (balance: InvoiceBalance): number =>
  balance.status === "VOIDED" ? 0 : balance.totalMicros - balance.paidMicros - balance.creditedMicros;

/** The payment state: `None` while nothing is paid, `Paid` once something is and nothing is owed. */
export function billingStatusOf(balance: InvoiceBalance): BillingStatus {
  if (balance.paidMicros === 0) return "None";
  return amountDueMicros(balance) === 0 ? "Paid" : "PartiallyPaid";
}

const usd = (micros: number) => `${fromMicros(micros)} USD`;

/** 409 unless the invoice is FINALIZED, naming its status and what was asked of it. */
function unlessFinalized(balance: InvoiceBalance, what: string): DomainError | undefined {
  if (balance.status === "FINALIZED") return undefined;
  return conflict(`The invoice is ${balance.status}: only a FINALIZED invoice ${what}`);
}

/** Why a payment of `amountMicros` is refused, or undefined: a FINALIZED invoice, at most its amount due. */
export function paymentRefusal(balance: InvoiceBalance, amountMicros: number): DomainError | undefined {
  const notFinal = unlessFinalized(balance, "takes payments");
  if (notFinal) return notFinal;
  if (balance.payments >= MAX_PAYMENTS_PER_INVOICE) {
    return conflict(`The invoice already has ${MAX_PAYMENTS_PER_INVOICE} payments, the most one invoice takes`);
  }
  const due = amountDueMicros(balance);
  if (amountMicros <= due) return undefined;
  return conflict(`amount ${usd(amountMicros)} is more than the amount due, ${usd(due)}`, [
    { path: "amount", message: `at most the amount due, ${fromMicros(due)}` },
  ]);
}

/**
 * Why a void is refused, or undefined: a DRAFT, or a FINALIZED invoice with nothing paid and no credits given back by
 * a `CREDITS` note (its void gives back the credits it used: they would be given twice).
 */
export function voidRefusal(balance: InvoiceBalance): DomainError | undefined {
  if (balance.status === "VOIDED") return conflict("The invoice is VOIDED already: it cannot become VOIDED again");
  if (balance.paidMicros > 0) {
    return conflict(`The invoice is FINALIZED with ${usd(balance.paidMicros)} paid: it cannot become VOIDED`);
  }
  if (balance.refundedAsCreditsMicros > 0) {
    return conflict(
      `The invoice is FINALIZED and a CREDITS credit note gave back ${usd(balance.refundedAsCreditsMicros)}: ` +
        "it cannot become VOIDED",
    );
  }
  return undefined;
}

/** The most a `CREDITS` note may give back: what was paid plus the credits used, less earlier `CREDITS` notes. */
export const refundableAsCreditsMicros = (balance: InvoiceBalance): number =>
  balance.paidMicros + balance.creditsUsedMicros - balance.refundedAsCreditsMicros;

/** Why a credit note is refused, or undefined: a FINALIZED invoice, and an amount within its refund's limit. */
export function creditNoteRefusal(
  balance: InvoiceBalance,
  { refund }: Pick<CreditNoteCreate, "refund">,
  amountMicros: number,
): DomainError | undefined {
  const notFinal = unlessFinalized(balance, "takes credit notes");
  if (notFinal) return notFinal;
  if (balance.creditNotes >= MAX_CREDIT_NOTES_PER_INVOICE) {
    return conflict(`The invoice already has ${MAX_CREDIT_NOTES_PER_INVOICE} credit notes, the most one invoice takes`);
  }
  const [limit, what] =
    refund === "OFFSET"
      ? [amountDueMicros(balance), "the amount due"]
      : [refundableAsCreditsMicros(balance), "what was paid plus the credits used, less earlier CREDITS notes"];
  if (amountMicros <= limit) return undefined;
  return conflict(`amount ${usd(amountMicros)} is more than ${what}, ${usd(limit)}`, [
    { path: "amount", message: `at most ${fromMicros(limit)} for refund ${refund}` },
  ]);
}
