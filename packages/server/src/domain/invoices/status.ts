import type { Invoice, InvoiceStatus } from "@billing/shared";
import { conflict } from "../errors.js";

/** Every change of an invoice's status, number, lines or money: each but REPRICE is one entry of its change log. */
export type InvoiceChangeKind =
  | "FINALIZE"
  | "NUMBER"
  | "PAYMENT"
  | "VOID"
  | "CREDIT_NOTE"
  | "REPRICE"
  | "UNCOLLECTIBLE";

/** The events an invoice's changes announce, each with the invoice as it is after the change. */
export type InvoiceEventType = "invoice.finalized" | "invoice.paid" | "invoice.voided";

interface Transition {
  /** The statuses the change may start from. */
  from: readonly InvoiceStatus[];
  /** The status it leaves. */
  to: InvoiceStatus;
  /** What it does, for a refusal: "only a DRAFT invoice can be {verb}". */
  verb: string;
  /** The event it announces, if the invoice then has it (see INVOICE_EVENTS). */
  announces?: InvoiceEventType;
}

/**
 * The invoice's machine: the one table of what each change may start from, the status it leaves and the event it
 * announces. A payment or credit note keeps FINALIZED; either may leave nothing due, which announces the payment.
 * NUMBER gives an invoice stored before the invoice life (finalized, and billed, before the log existed) the number
 * and finalization fields its FINALIZE would have given it: it announces that finalization. REPRICE is a run pricing
 * a draft again from the usage stored since: it is no entry of the log, as the FINALIZE that ends the draft carries
 * the lines for good (a draft's log holds only its FINALIZE or VOID, so a draft is repriced only at changeCount 0).
 * UNCOLLECTIBLE keeps FINALIZED: a payment or credit note may still close the invoice.
 * A credit note's own `credit_note.created` is its document's event, published with the document.
 */
const TRANSITIONS: Record<InvoiceChangeKind, Transition> = {
  FINALIZE: { from: ["DRAFT"], to: "FINALIZED", verb: "finalized", announces: "invoice.finalized" },
  NUMBER: { from: ["FINALIZED"], to: "FINALIZED", verb: "numbered", announces: "invoice.finalized" },
  PAYMENT: { from: ["FINALIZED"], to: "FINALIZED", verb: "paid", announces: "invoice.paid" },
  VOID: { from: ["DRAFT", "FINALIZED"], to: "VOIDED", verb: "voided", announces: "invoice.voided" },
  CREDIT_NOTE: { from: ["FINALIZED"], to: "FINALIZED", verb: "credited", announces: "invoice.paid" },
  REPRICE: { from: ["DRAFT"], to: "DRAFT", verb: "repriced" },
  // Dunning's final action; its `invoice.marked_uncollectible` is the dunning step's message (services/collection/).
  UNCOLLECTIBLE: { from: ["FINALIZED"], to: "FINALIZED", verb: "marked uncollectible" },
};

/**
 * Each event of an invoice's changes: whether the invoice has it after the change that announces it (Paid is for
 * good, so `invoice.paid` is announced once, by whichever change reached it), and the field of the invoice's life that
 * dates the change, by which the webhook sweep finds the invoices whose message may be missing.
 */
export const INVOICE_EVENTS: Record<
  InvoiceEventType,
  { has: (invoice: Invoice) => boolean; datedBy: "finalizationLoggedAt" | "paidAt" | "voidedAt" }
> = {
  "invoice.finalized": { has: () => true, datedBy: "finalizationLoggedAt" },
  "invoice.paid": { has: (invoice) => invoice.billingStatus === "Paid", datedBy: "paidAt" },
  "invoice.voided": { has: () => true, datedBy: "voidedAt" },
};

export const statusAfter = (kind: InvoiceChangeKind): InvoiceStatus => TRANSITIONS[kind].to;

/** The event a change announces, given the invoice as it is after it; none when the invoice does not have it. */
export function eventAfter(kind: InvoiceChangeKind, invoice: Invoice): InvoiceEventType | undefined {
  const type = TRANSITIONS[kind].announces;
  return type && INVOICE_EVENTS[type].has(invoice) ? type : undefined;
}

export const isLegalChange = (current: InvoiceStatus, kind: InvoiceChangeKind) =>
  TRANSITIONS[kind].from.includes(current);

/** A 409 naming the invoice's status and the one the change needs, unless the change is legal. */
export function assertLegalChange(current: InvoiceStatus, kind: InvoiceChangeKind): void {
  if (isLegalChange(current, kind)) return;
  const { from, verb } = TRANSITIONS[kind];
  throw conflict(`The invoice is ${current}: only a ${from.join(" or ")} invoice can be ${verb}`, [
    { path: "status", message: `is ${current}, must be ${from.join(" or ")}` },
  ]);
}
