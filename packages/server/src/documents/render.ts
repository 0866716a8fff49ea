import type { Invoice } from "@billing/shared";
import type { Party } from "./content.js";
import { creditNoteContent, type DocumentCreditNote } from "./credit-note-content.js";
import { renderHtml } from "./html.js";
import { invoiceContent } from "./invoice-content.js";
import { renderPdf } from "./pdf.js";

export type { Party } from "./content.js";
export type { DocumentCreditNote } from "./credit-note-content.js";

/** An invoice as a PDF (pure: the same invoice and parties give the same pages). */
export const renderInvoicePdf = (invoice: Invoice, seller: Party, buyer: Party): Promise<Uint8Array> =>
  renderPdf(invoiceContent(invoice, seller, buyer));

/** An invoice as an HTML page, with the PDF's content. */
export const renderInvoiceHtml = (invoice: Invoice, seller: Party, buyer: Party): string =>
  renderHtml(invoiceContent(invoice, seller, buyer));

/** A credit note as a PDF; `invoiceNumber`: the number of the invoice it credits. */
export const renderCreditNotePdf = (
  creditNote: DocumentCreditNote,
  invoiceNumber: string,
  seller: Party,
  buyer: Party,
): Promise<Uint8Array> => renderPdf(creditNoteContent(creditNote, invoiceNumber, seller, buyer));
