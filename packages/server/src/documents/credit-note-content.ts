import type { DocumentContent, Party } from "./content.js";
import { formatAmount, formatDate } from "./format.js";

/**
 * The credit note fields its document shows, as the API returns them (`GET /credit-notes/{creditNoteId}`), with the
 * number of the invoice it credits.
 */
export interface DocumentCreditNote {
  number: string;
  invoiceId: string;
  amount: number;
  currency: string;
  reason: "DUPLICATE" | "PRODUCT_UNSATISFACTORY" | "ORDER_CHANGE" | "OTHER" | "USAGE_CORRECTION";
  refund: "OFFSET" | "CREDITS" | "PROVIDER";
  createdAt: string;
}

const REASONS: Record<DocumentCreditNote["reason"], string> = {
  DUPLICATE: "Duplicate charge",
  PRODUCT_UNSATISFACTORY: "Product unsatisfactory",
  ORDER_CHANGE: "Order change",
  OTHER: "Other",
  USAGE_CORRECTION: "Usage corrected after the invoice",
};

const REFUNDS: Record<DocumentCreditNote["refund"], string> = {
  OFFSET: "Deducted from the amount due of the invoice",
  CREDITS: "Granted as credits to the customer's balance",
  PROVIDER: "Refunded to the payment method that paid it",
};

/** What a credit note's PDF says: one line crediting the invoice by its number, and the amount credited. */
export function creditNoteContent(
  creditNote: DocumentCreditNote,
  invoiceNumber: string,
  seller: Party,
  buyer: Party,
): DocumentContent {
  const amount = formatAmount(creditNote.amount, creditNote.currency);
  return {
    title: "CREDIT NOTE",
    number: creditNote.number,
    seller,
    buyer,
    facts: [
      { label: "Credit note", value: creditNote.number },
      { label: "Issue date", value: formatDate(creditNote.createdAt) },
      { label: "Invoice", value: invoiceNumber },
      { label: "Reason", value: REASONS[creditNote.reason] },
      { label: "Refund", value: REFUNDS[creditNote.refund] },
    ],
    lines: [{ description: `Credit on invoice ${invoiceNumber}`, quantity: "", unitPrice: "", amount, details: [] }],
    totals: [{ label: "Total credited", value: amount, emphasis: true }],
    footer: `All amounts in ${creditNote.currency}.`,
  };
}
