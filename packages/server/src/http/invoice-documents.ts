import type { ServerResponse } from "node:http";
import { invoiceIdParam } from "@billing/shared";
import type { OpenAPIObject } from "trpc-to-openapi";
import { z } from "zod";
import type { Context } from "../context.js";
import { renderInvoiceHtml, renderInvoicePdf } from "../documents/render.js";
import { statusOf, toErrorBody } from "../error-body.js";
import { invoiceWithParties } from "../services/invoice-documents.js";
import { accountProcedure, router } from "../trpc.js";

/**
 * `GET /invoices/{invoiceId}/pdf` and `/html`: raw HTTP routes, since trpc-to-openapi answers JSON only. Each runs
 * as one call of the procedure below, so it is authenticated, limited and scoped to its account exactly like every
 * route of the document (another account's invoice is a 404).
 */
const documentsRouter = router({
  invoice: accountProcedure
    .input(z.object({ invoiceId: invoiceIdParam }))
    .query(({ ctx, input }) => invoiceWithParties(ctx.repositories, ctx.accountId, input.invoiceId)),
});

const FORMATS = {
  pdf: {
    contentType: "application/pdf",
    schema: { type: "string", format: "binary" },
    summary: "An invoice as a PDF",
  },
  html: { contentType: "text/html; charset=utf-8", schema: { type: "string" }, summary: "An invoice as an HTML page" },
} as const;
type Format = keyof typeof FORMATS;

const CONTENT =
  "Seller and buyer, number (`DRAFT` before finalization), issue and due dates, billing cycle, every line with its " +
  "quantity, unit price, tiers or packages and amount, then subtotal, overage, discount, credits used, tax, total, " +
  "amount paid, amount credited and amount due, each amount as the invoice's JSON gives it; a voided invoice is " +
  "stamped VOID. Another account's invoice is a 404.";

/**
 * Adds the routes to the document, which trpc-to-openapi builds from JSON procedures only: the tag, security,
 * parameter (with its example) and error responses of `GET /invoices/{invoiceId}`, whose errors they share.
 */
export function documentInvoiceDocuments(document: OpenAPIObject) {
  const { parameters, responses, tags, security } = document.paths?.["/invoices/{invoiceId}"]?.get ?? {};
  const { "200": _, ...errors } = responses ?? {};
  for (const [format, { contentType, schema, summary }] of Object.entries(FORMATS)) {
    document.paths ??= {};
    document.paths[`/invoices/{invoiceId}/${format}`] = {
      get: structuredClone({
        operationId: `invoices-${format}`,
        summary,
        description: `${CONTENT} The same content as ${format === "pdf" ? "`/html`" : "`/pdf`"}.`,
        tags,
        security,
        parameters,
        responses: { "200": { description: summary, content: { [contentType]: { schema } } }, ...errors },
      }),
    };
  }
}

/** Matched as the router matches: any case, one trailing slash. */
const DOCUMENT_PATH = /^\/invoices\/([^/]+)\/(pdf|html)\/?$/i;

/** The invoice id (decoded) and format a path asks for, or undefined when it names no invoice document. */
export function invoiceDocumentOf(path: string): { invoiceId: string; format: Format } | undefined {
  const match = DOCUMENT_PATH.exec(path);
  if (!match?.[1] || !match[2]) return undefined;
  try {
    return { invoiceId: decodeURIComponent(match[1]), format: match[2].toLowerCase() as Format };
  } catch {
    return undefined; // not valid percent-encoding: the REST handler's 400
  }
}

/**
 * Answers with the document, or with the error body and status of any other route. The HTML page carries no
 * script and may load nothing: its policy forbids both, should escaping ever miss a value.
 */
export async function serveInvoiceDocument(
  res: ServerResponse,
  context: Context,
  { invoiceId, format }: { invoiceId: string; format: Format },
): Promise<void> {
  try {
    const { invoice, seller, buyer } = await documentsRouter.createCaller(context).invoice({ invoiceId });
    const body =
      format === "pdf" ? await renderInvoicePdf(invoice, seller, buyer) : renderInvoiceHtml(invoice, seller, buyer);
    const filename = `${invoice.number ?? `DRAFT-${invoice.id}`}.${format}`;
    res.writeHead(200, {
      "content-type": FORMATS[format].contentType,
      "content-length": Buffer.byteLength(body),
      "content-disposition": `${format === "pdf" ? "attachment" : "inline"}; filename="${filename}"`,
      "cache-control": "private, no-store",
      "x-content-type-options": "nosniff",
      ...(format === "html" && { "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'" }),
    });
    res.end(body);
  } catch (error) {
    const errorBody = toErrorBody(error);
    if (errorBody.code === "INTERNAL_SERVER_ERROR") context.trace.log.error({ err: error }, "invoice document failed");
    const payload = JSON.stringify(errorBody);
    res.writeHead(statusOf(errorBody), {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(payload),
    });
    res.end(payload);
  }
}
