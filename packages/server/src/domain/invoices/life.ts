import type { BillingStatus, CreditNote, InvoiceStatus } from "@billing/shared";
import { addMicros, asMicros, type Micros, ZERO_MICROS } from "../money/micros.js";
import { statusAfter } from "./status.js";

/** The payment a PAYMENT change recorded; the invoice shows its latest as `paymentInfo`. */
export interface RecordedPayment {
  paymentId: string;
  amount: Micros;
  date: Date;
  paymentMethod?: string;
  transactionId?: string;
  note?: string;
  /** Collected through this payment provider (a charge or Checkout payment it confirmed): refundable through it. */
  provider?: string;
}

/** `at`: the issue date (a run's `at`, or now); `loggedAt`: when the finalization was made, on the server's clock. */
interface Finalization<Priced> {
  at: Date;
  loggedAt: Date;
  totalMicros: Micros;
  priced: Priced;
  number: string;
}

/**
 * One change of an invoice, as its change log holds it (the log's entry adds its place `n`). `Priced` is how the
 * invoice's lines and totals are stored: FINALIZE carries them as finalized (credits applied), so replaying it
 * restores them whatever a lost or concurrent write left.
 */
export type InvoiceChange<Priced> =
  | ({ kind: "FINALIZE" } & Finalization<Priced>)
  /** The finalization of an invoice stored before the invoice life, logged when it is numbered (see status.ts). */
  | ({ kind: "NUMBER" } & Finalization<Priced>)
  | { kind: "PAYMENT"; at: Date; payment: RecordedPayment }
  | { kind: "VOID"; at: Date; reason?: string }
  /** Dunning gave up on what is due (the policy's final action `MARK_UNCOLLECTIBLE`): the invoice stays FINALIZED. */
  | { kind: "UNCOLLECTIBLE"; at: Date }
  | {
      kind: "CREDIT_NOTE";
      at: Date;
      creditNoteId: string;
      /** What an `OFFSET` note takes off what is owed, or a `CREDITS` note gives back as credits: one of them is 0. */
      offset: Micros;
      credits: Micros;
      reason: CreditNote["reason"];
      /**
       * A `PROVIDER` note (offset and credits 0): what it refunds through `provider`, per provider payment (the
       * payments' transaction ids), decided against the log like every amount. `origin` PROVIDER: a refund made at the
       * provider itself (its `charge.refunded`), recorded, not made.
       */
      providerRefund?: { provider: string; origin: "API" | "PROVIDER"; refunds: ProviderRefundShare[] };
      /** A USAGE_CORRECTION's product and units (negative), and the invoice whose pricing found it (late-usage.ts). */
      adjusts?: CreditNoteAdjusts;
    };

/** What a `PROVIDER` credit note refunds of one provider payment, in micro-units. */
export interface ProviderRefundShare {
  paymentId: string;
  micros: Micros;
}

/** What a late-usage correction credits: an original invoice's product, its units (signed), who found it. */
export interface CreditNoteAdjusts {
  product: string;
  /** Micro-units as decimal text (a bigint in a document). */
  quantityMicros: string;
  /** The correction before tax (negative), the same on both notes of one correction; absent: their amounts. */
  chargedMicros?: Micros;
  foundBy: string;
}

/** What an invoice's changes decide: its status, number and money, and how many changes it has taken. */
export interface InvoiceLife<Priced> {
  status: InvoiceStatus;
  number: string | null;
  totalMicros: Micros;
  priced: Priced;
  amountPaid: Micros;
  amountCredited: Micros;
  latestPayment?: RecordedPayment;
  finalizedAt: Date | null;
  /** When the finalization was made (the server's clock, where `finalizedAt` may be a backfill's past `at`). */
  finalizationLoggedAt: Date | null;
  /** When the change that left nothing due after a payment was made (billingStatus Paid). */
  paidAt: Date | null;
  voidedAt: Date | null;
  /** Why it was voided, when the void said. */
  voidReason?: string;
  /** When dunning marked what is due uncollectible; a payment or credit note leaving nothing due still closes it. */
  uncollectibleAt: Date | null;
  changeCount: number;
}

/** A new invoice is a DRAFT of what it was priced at: nothing paid, no number, no change yet. */
export const newInvoiceLife = <P extends { amount: Micros }>(priced: P): InvoiceLife<P> => ({
  status: "DRAFT",
  number: null,
  totalMicros: priced.amount,
  priced,
  amountPaid: ZERO_MICROS,
  amountCredited: ZERO_MICROS,
  finalizedAt: null,
  finalizationLoggedAt: null,
  paidAt: null,
  voidedAt: null,
  uncollectibleAt: null,
  changeCount: 0,
});

/**
 * What tells whether an invoice's lines are final, and since when: its status (absent on an invoice stored before the
 * invoice life), when it was stored, and when it was finalized.
 */
export interface InvoiceFinality {
  status?: InvoiceStatus;
  createdAt: Date;
  finalizationLoggedAt: Date | null;
  finalizedAt: Date | null;
}

/**
 * Since when the invoice's lines are final, or null while they are not (a draft is priced again until it is
 * finalized; one voided as a draft never was): an invoice stored before the invoice life was final as it was stored;
 * one finalized before `finalizationLoggedAt` was stored was finalized on the server's clock, at `finalizedAt`.
 */
export const finalSince = ({ status, createdAt, finalizationLoggedAt, finalizedAt }: InvoiceFinality): Date | null =>
  status === undefined ? createdAt : (finalizationLoggedAt ?? finalizedAt);

/**
 * The one place an invoice change takes effect: the life after the change `n` (the caller applies the log in order,
 * each change past the invoice's changeCount exactly once). Legality was decided when the change was logged.
 */
export function applyInvoiceChange<P>(life: InvoiceLife<P>, change: InvoiceChange<P> & { n: number }): InvoiceLife<P> {
  const next = { ...life, status: statusAfter(change.kind), changeCount: change.n };
  switch (change.kind) {
    case "FINALIZE":
    case "NUMBER":
      return {
        ...next,
        totalMicros: change.totalMicros,
        priced: change.priced,
        number: change.number,
        finalizedAt: change.at,
        finalizationLoggedAt: change.loggedAt,
      };
    case "PAYMENT":
      return paidWhenSettled(
        { ...next, amountPaid: addMicros(life.amountPaid, change.payment.amount), latestPayment: change.payment },
        change.at,
      );
    case "VOID":
      return { ...next, voidedAt: change.at, ...(change.reason !== undefined && { voidReason: change.reason }) };
    case "UNCOLLECTIBLE":
      return { ...next, uncollectibleAt: life.uncollectibleAt ?? change.at };
    case "CREDIT_NOTE":
      return paidWhenSettled({ ...next, amountCredited: addMicros(life.amountCredited, change.offset) }, change.at);
  }
}

/** Paid is for good (nothing raises what is due again): its time is that of the change that first reached it. */
const paidWhenSettled = <P>(life: InvoiceLife<P>, at: Date): InvoiceLife<P> =>
  life.paidAt === null && billingStatusOf(life) === "Paid" ? { ...life, paidAt: at } : life;

/** total − paid − credited, never below 0; a voided invoice owes nothing. */
export const amountDueOf = ({ status, totalMicros, amountPaid, amountCredited }: InvoiceLife<unknown>): Micros =>
  status === "VOIDED" ? ZERO_MICROS : asMicros(Math.max(0, totalMicros - amountPaid - amountCredited));

/**
 * Uncollectible while something is due after dunning marked it so; else None until something is paid, then Paid once
 * nothing is due, else PartiallyPaid. A payment or credit note that leaves nothing due closes an uncollectible invoice.
 */
export function billingStatusOf(life: InvoiceLife<unknown>): BillingStatus {
  if (life.uncollectibleAt && isOwing(life)) return "Uncollectible";
  if (life.amountPaid === 0) return "None";
  return amountDueOf(life) === 0 ? "Paid" : "PartiallyPaid";
}

/** Whether the invoice asks for money: FINALIZED with something due (stored, so that `overdue` is index-served). */
export const isOwing = (life: InvoiceLife<unknown>) => life.status === "FINALIZED" && amountDueOf(life) > 0;

/** Owing, and `now` after its due date. */
export const isOverdue = (life: InvoiceLife<unknown>, dueDate: Date, now: Date) =>
  isOwing(life) && now.getTime() > dueDate.getTime();
