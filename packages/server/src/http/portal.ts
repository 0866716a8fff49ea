import type { IncomingMessage, ServerResponse } from "node:http";
import { renderPortalPage, renderPortalRefusal } from "../documents/portal-html.js";
import { renderInvoicePdf } from "../documents/render.js";
import { statusOf, toErrorBody } from "../error-body.js";
import type { Logger } from "../logger.js";
import type { Repositories } from "../repositories/index.js";
import { PORTAL_PATH, portalInvoiceOf, portalPageOf, portalPayment } from "../routers/portal-pages.js";

/** No script, nothing loaded from elsewhere; forms post only to the portal itself (then Checkout's redirect). */
const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "private, no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
};

/**
 * Serves the customer portal when `path` is one of its routes: GET the page, GET an invoice's PDF, POST an
 * invoice's "Pay" (303 to the provider's Checkout page). A changed or expired link is a 401 page, another customer's
 * invoice a 404. Returns false for any other path.
 */
export function servePortal(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  { repositories, log, publicPath }: { repositories: Repositories; log: Logger; publicPath: string },
): boolean {
  const match = PORTAL_PATH.exec(path);
  if (!match) return false;
  const [, token = "", invoiceId, action] = match;
  const method = req.method ?? "GET";
  const allowed = action === "pay" ? "POST" : "GET";
  if (method !== allowed && !(allowed === "GET" && method === "HEAD")) {
    res.writeHead(405, { allow: allowed, "content-type": "text/plain" });
    res.end("Method Not Allowed");
    return true;
  }
  const now = new Date();
  const answer = async () => {
    if (!invoiceId) {
      const page = renderPortalPage(await portalPageOf(repositories, log, token, publicPath, now));
      res.writeHead(200, PAGE_HEADERS);
      return void res.end(page);
    }
    if (action === "pdf") {
      const { invoice, seller, buyer, test } = await portalInvoiceOf(repositories, log, token, invoiceId, now);
      const body = await renderInvoicePdf(invoice, seller, buyer, test);
      res.writeHead(200, {
        "content-type": "application/pdf",
        "content-length": Buffer.byteLength(body),
        "content-disposition": `attachment; filename="${invoice.number ?? invoice.id}.pdf"`,
        "cache-control": "private, no-store",
      });
      return void res.end(body);
    }
    const host = req.headers.host ?? "localhost";
    const scheme = (req.socket as { encrypted?: boolean }).encrypted ? "https" : "http";
    const returnTo = `${scheme}://${host}${publicPath}/portal/${token}`;
    const session = await portalPayment(repositories, log, token, invoiceId, returnTo, now);
    res.writeHead(303, { location: session.url, "cache-control": "no-store" });
    res.end();
  };
  answer().catch((cause: unknown) => {
    const body = toErrorBody(cause);
    const status = statusOf(body);
    if (status >= 500) log.error({ err: cause }, "customer portal failed");
    if (res.headersSent) return void res.end();
    res.writeHead(status, PAGE_HEADERS);
    res.end(renderPortalRefusal(status >= 500 ? "Something went wrong; try again later." : body.message));
  });
  return true;
}
