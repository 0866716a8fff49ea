import type { Invoice } from "@billing/shared";
import { type DocumentContent, markedAsTest, type Party } from "./content.js";
import { creditNoteContent, type DocumentCreditNote } from "./credit-note-content.js";
import { renderHtml } from "./html.js";
import { invoiceContent } from "./invoice-content.js";
import { renderPdf } from "./pdf.js";

export type { Party } from "./content.js";
export type { DocumentCreditNote } from "./credit-note-content.js";

/** Documents of a test account are marked TEST (`test`). */
const marked = (content: DocumentContent, test: boolean) => (test ? markedAsTest(content) : content);

/** An invoice as a PDF (pure: the same invoice and parties give the same pages). */
export const renderInvoicePdf = (invoice: Invoice, seller: Party, buyer: Party, test = false): Promise<Uint8Array> =>
  renderPdf(marked(invoiceContent(invoice, seller, buyer), test));

/** An invoice as an HTML page, with the PDF's content. */
export const renderInvoiceHtml = (invoice: Invoice, seller: Party, buyer: Party, test = false): string =>
  renderHtml(marked(invoiceContent(invoice, seller, buyer), test));

/** A credit note as a PDF; `invoiceNumber`: the number of the invoice it credits. */
export const renderCreditNotePdf = (
  creditNote: DocumentCreditNote,
  invoiceNumber: string,
  seller: Party,
  buyer: Party,
  test = false,
): Promise<Uint8Array> => renderPdf(marked(creditNoteContent(creditNote, invoiceNumber, seller, buyer), test));
