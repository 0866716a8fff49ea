import type { ServerResponse } from "node:http";
import type { OpenAPIObject } from "trpc-to-openapi";
import type { Context } from "../context.js";
import { renderCreditNotePdf, renderInvoiceHtml, renderInvoicePdf } from "../documents/render.js";
import { statusOf, toErrorBody } from "../error-body.js";
import { documentsRouter } from "../routers/documents.js";

/**
 * `GET /invoices/{invoiceId}/pdf` and `/html`, `GET /credit-notes/{creditNoteId}/pdf`: raw HTTP routes, since
 * trpc-to-openapi answers JSON only. Each runs as one call of a procedure of documentsRouter, so it is authenticated,
 * limited and scoped to its account exactly like every route of the document (another account's invoice is a 404).
 */
type Caller = ReturnType<typeof documentsRouter.createCaller>;

const FORMATS = {
  pdf: { contentType: "application/pdf", schema: { type: "string", format: "binary" }, noun: "a PDF" },
  html: { contentType: "text/html; charset=utf-8", schema: { type: "string" }, noun: "an HTML page" },
} as const;
type Format = keyof typeof FORMATS;

interface RenderedDocument {
  body: string | Uint8Array;
  /** The file name without its extension: the document's number. */
  name: string;
}

/**
 * Every document kind: the resource whose `GET` it shares tag, security, parameter and errors with, its formats, what
 * it shows (for the OpenAPI description), and how it is rendered.
 */
const KINDS = {
  invoice: {
    resourcePath: "/invoices/{invoiceId}",
    noun: "An invoice",
    formats: ["pdf", "html"],
    content:
      "Seller and buyer, number (`DRAFT` before finalization), issue and due dates, billing cycle, every line with " +
      "its quantity, unit price, tiers or packages and amount, then subtotal, overage, discount, credits used, tax, " +
      "total, amount paid, amount credited and amount due, each amount as the invoice's JSON gives it; a voided " +
      "invoice is stamped VOID, a test account's TEST. Another account's invoice is a 404.",
    async render(caller: Caller, invoiceId: string, format: Format): Promise<RenderedDocument> {
      const { invoice, seller, buyer, test } = await caller.invoice({ invoiceId });
      const body =
        format === "pdf"
          ? await renderInvoicePdf(invoice, seller, buyer, test)
          : renderInvoiceHtml(invoice, seller, buyer, test);
      return { body, name: invoice.number ?? `DRAFT-${invoice.id}` };
    },
  },
  creditNote: {
    resourcePath: "/credit-notes/{creditNoteId}",
    noun: "A credit note",
    formats: ["pdf"],
    content:
      "Seller and buyer, the credit note's number and issue date, the number of the invoice it credits, its reason " +
      "and refund, and the amount credited as the credit note's JSON gives it; a test account's is stamped TEST. " +
      "Another account's credit note is a 404.",
    async render(caller: Caller, creditNoteId: string): Promise<RenderedDocument> {
      const { creditNote, invoiceNumber, seller, buyer, test } = await caller.creditNote({ creditNoteId });
      const body = await renderCreditNotePdf(creditNote, invoiceNumber, seller, buyer, test);
      return { body, name: creditNote.number };
    },
  },
} as const;
type Kind = keyof typeof KINDS;

/** One path matcher per kind, as the router matches: any case, one trailing slash. */
const MATCHERS = Object.entries(KINDS).map(([kind, { resourcePath, formats }]) => ({
  kind: kind as Kind,
  pattern: new RegExp(`^${resourcePath.replace(/\{\w+\}/, "([^/]+)")}/(${formats.join("|")})/?$`, "i"),
}));

export interface DocumentRequest {
  kind: Kind;
  /** The invoice's or credit note's id, decoded. */
  id: string;
  format: Format;
}

/** The document a path asks for, or undefined when it names none. */
export function documentRequestOf(path: string): DocumentRequest | undefined {
  for (const { kind, pattern } of MATCHERS) {
    const match = pattern.exec(path);
    if (!match?.[1] || !match[2]) continue;
    try {
      return { kind, id: decodeURIComponent(match[1]), format: match[2].toLowerCase() as Format };
    } catch {
      return undefined; // not valid percent-encoding: the REST handler's 400
    }
  }
  return undefined;
}

/**
 * Adds the routes to the document, which trpc-to-openapi builds from JSON procedures only: the tag, security,
 * parameter (with its example) and error responses of the resource's `GET`, whose errors they share.
 */
export function documentDocumentRoutes(document: OpenAPIObject) {
  document.paths ??= {};
  for (const { resourcePath, noun, formats, content } of Object.values(KINDS)) {
    const { parameters, responses, tags, security } = document.paths[resourcePath]?.get ?? {};
    const { "200": _, ...errors } = responses ?? {};
    for (const format of formats) {
      const { contentType, schema } = FORMATS[format];
      const summary = `${noun} as ${FORMATS[format].noun}`;
      const others = formats.filter((other) => other !== format).map((other) => `\`/${other}\``);
      document.paths[`${resourcePath}/${format}`] = {
        get: structuredClone({
          operationId: `${tags?.[0] ?? resourcePath.split("/")[1]}-${format}`,
          summary,
          description: others.length ? `${content} The same content as ${others.join(", ")}.` : content,
          tags,
          security,
          parameters,
          responses: { "200": { description: summary, content: { [contentType]: { schema } } }, ...errors },
        }),
      };
    }
  }
}

/**
 * Answers with the document, or with the error body and status of any other route. The HTML page carries no
 * script and may load nothing: its policy forbids both, should escaping ever miss a value.
 */
export async function serveDocument(res: ServerResponse, context: Context, { kind, id, format }: DocumentRequest) {
  try {
    const { body, name } = await KINDS[kind].render(documentsRouter.createCaller(context), id, format);
    res.writeHead(200, {
      "content-type": FORMATS[format].contentType,
      "content-length": Buffer.byteLength(body),
      "content-disposition": `${format === "pdf" ? "attachment" : "inline"}; filename="${name}.${format}"`,
      "cache-control": "private, no-store",
      "x-content-type-options": "nosniff",
      ...(format === "html" && { "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'" }),
    });
    res.end(body);
  } catch (error) {
    const errorBody = toErrorBody(error);
    if (errorBody.code === "INTERNAL_SERVER_ERROR") context.trace.log.error({ err: error }, `${kind} document failed`);
    const payload = JSON.stringify(errorBody);
    res.writeHead(statusOf(errorBody), {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(payload),
    });
    res.end(payload);
  }
}
