import type { RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";

/** An invoice's documents, with the content of its JSON: seller, buyer, lines and totals (README, "Documents"). */
export interface InvoiceDocumentsApi {
  /** The invoice as a PDF file's bytes (`application/pdf`), e.g. for `writeFile("INV-000001.pdf", bytes)`. */
  pdf(invoiceId: string, options?: RequestOptions): Promise<Uint8Array>;
  /** The invoice as one self-contained HTML page (inline style, no script). */
  html(invoiceId: string, options?: RequestOptions): Promise<string>;
}

export function invoiceDocumentsResource({ call, getRaw }: Transport): InvoiceDocumentsApi {
  const path = (invoiceId: string, format: string) => `/invoices/${encodeURIComponent(invoiceId)}/${format}`;
  // Safe: reading a document changes nothing. The body is read within the attempt, so its timeout covers it.
  return {
    pdf: (invoiceId, options) =>
      call(
        "safe",
        async (attempt) => new Uint8Array(await (await getRaw(path(invoiceId, "pdf"), attempt)).arrayBuffer()),
        options,
      ),
    html: (invoiceId, options) =>
      call("safe", async (attempt) => (await getRaw(path(invoiceId, "html"), attempt)).text(), options),
  };
}
