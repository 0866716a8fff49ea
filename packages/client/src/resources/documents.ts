import type { RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";

/** An invoice's documents, with the content of its JSON: seller, buyer, lines and totals (README, "Documents"). */
export interface InvoiceDocumentsApi {
  /** The invoice as a PDF file's bytes (`application/pdf`), e.g. for `writeFile("INV-000001.pdf", bytes)`. */
  pdf(invoiceId: string, options?: RequestOptions): Promise<Uint8Array>;
  /** The invoice as one self-contained HTML page (inline style, no script). */
  html(invoiceId: string, options?: RequestOptions): Promise<string>;
}

/** A credit note's document: its number, the invoice it credits, reason, refund and amount. */
export interface CreditNoteDocumentsApi {
  /** The credit note as a PDF file's bytes (`application/pdf`), e.g. for `writeFile("CN-000001.pdf", bytes)`. */
  pdf(creditNoteId: string, options?: RequestOptions): Promise<Uint8Array>;
}

/** The GETs of the document routes. Safe: reading a document changes nothing. */
function downloads({ call, getRaw }: Transport) {
  // The body is read within the attempt, so its timeout covers it.
  return {
    bytes: (path: string, options?: RequestOptions) =>
      call("safe", async (attempt) => new Uint8Array(await (await getRaw(path, attempt)).arrayBuffer()), options),
    text: (path: string, options?: RequestOptions) =>
      call("safe", async (attempt) => (await getRaw(path, attempt)).text(), options),
  };
}

export function invoiceDocumentsResource(transport: Transport): InvoiceDocumentsApi {
  const { bytes, text } = downloads(transport);
  const path = (invoiceId: string, format: string) => `/invoices/${encodeURIComponent(invoiceId)}/${format}`;
  return {
    pdf: (invoiceId, options) => bytes(path(invoiceId, "pdf"), options),
    html: (invoiceId, options) => text(path(invoiceId, "html"), options),
  };
}

export function creditNoteDocumentsResource(transport: Transport): CreditNoteDocumentsApi {
  const { bytes } = downloads(transport);
  return {
    pdf: (creditNoteId, options) => bytes(`/credit-notes/${encodeURIComponent(creditNoteId)}/pdf`, options),
  };
}
