import type { InvoiceStatus } from "@billing/shared";
import { conflict } from "../errors.js";

/** Every change of an invoice's status or money, each one entry of its change log. */
export type InvoiceChangeKind = "FINALIZE" | "PAYMENT" | "VOID" | "CREDIT_NOTE";

/** The statuses each change may start from, and the status it leaves (a payment or credit note keeps FINALIZED). */
const TRANSITIONS: Record<InvoiceChangeKind, { from: readonly InvoiceStatus[]; to: InvoiceStatus; verb: string }> = {
  FINALIZE: { from: ["DRAFT"], to: "FINALIZED", verb: "finalized" },
  PAYMENT: { from: ["FINALIZED"], to: "FINALIZED", verb: "paid" },
  VOID: { from: ["DRAFT", "FINALIZED"], to: "VOIDED", verb: "voided" },
  CREDIT_NOTE: { from: ["FINALIZED"], to: "FINALIZED", verb: "credited" },
};

export const statusAfter = (kind: InvoiceChangeKind): InvoiceStatus => TRANSITIONS[kind].to;

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
