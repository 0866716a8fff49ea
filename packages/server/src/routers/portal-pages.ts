import type { Logger } from "../logger.js";
import { amountOf } from "../presenters/money.js";
import type { Repositories } from "../repositories/index.js";
import { openPortal, portalCheckout, portalInvoice, portalPathOf, portalView } from "../services/collection/portal.js";

/** `/portal/<token>`, `/portal/<token>/invoices/<invoiceId>/pdf` (GET) and `…/pay` (POST). */
export const PORTAL_PATH = /^\/portal\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)(?:\/invoices\/([^/]+)\/(pdf|pay))?\/?$/;

/**
 * The customer portal's reads and its "Pay": raw HTML routes outside tRPC and the OpenAPI document, whose caller is
 * the customer's browser (no token: the link's signature is the authority, for one customer of one account).
 */
async function scopeOfLink(repositories: Repositories, log: Logger, token: string, now: Date) {
  const grant = await openPortal({ repositories }, token, now);
  return { grant, call: { repositories, accountId: grant.accountId, log } };
}

export async function portalPageOf(
  repositories: Repositories,
  log: Logger,
  token: string,
  publicPath: string,
  now: Date,
) {
  const { grant, call } = await scopeOfLink(repositories, log, token, now);
  const view = await portalView(call, grant);
  return {
    ...view,
    creditBalance: amountOf(view.creditBalance),
    base: `${publicPath}${portalPathOf(token)}`,
    ...(grant.returnUrl !== undefined && { returnUrl: grant.returnUrl }),
  };
}

export async function portalInvoiceOf(repositories: Repositories, log: Logger, token: string, id: string, now: Date) {
  const { grant, call } = await scopeOfLink(repositories, log, token, now);
  return portalInvoice(call, grant, id);
}

export async function portalPayment(
  repositories: Repositories,
  log: Logger,
  token: string,
  invoiceId: string,
  returnTo: string,
  now: Date,
) {
  const { grant, call } = await scopeOfLink(repositories, log, token, now);
  return portalCheckout(call, grant, invoiceId, returnTo);
}
