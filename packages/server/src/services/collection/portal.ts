import type { Invoice, PortalRevocation, PortalSession, PortalSessionCreate } from "@billing/shared";
import type { PortalContent } from "../../documents/portal-html.js";
import {
  claimedAccountOf,
  isRevoked,
  type PortalGrant,
  signPortalToken,
  verifyPortalToken,
} from "../../domain/collection/portal-token.js";
import { conflict, notFound, unauthorized } from "../../domain/errors.js";
import { microsPerMinorUnit } from "../../domain/money/currency.js";
import type { Micros } from "../../domain/money/micros.js";
import { microsOf } from "../../presenters/money.js";
import type { CallScope } from "../call-scope.js";
import { creditBalanceOf } from "../credit-ledger.js";
import { invoiceWithParties } from "../documents.js";
import { entitlementsOf } from "../entitlements.js";
import { completeInvoices, readInvoice } from "../invoices/changes.js";
import { publishChange } from "../webhook-events.js";
import { connectedProvider } from "./connections.js";

/** How long a portal link works when the request names no `expiresIn`: an hour. */
const DEFAULT_PORTAL_SECONDS = 3600;
/** Invoices and credit notes a portal page lists, newest last: the customer's recent ones. */
const PORTAL_LIST_LIMIT = 100;

/** Where the portal pages are served: `/portal/<token>`, under PUBLIC_URL when it is set. */
export const portalPathOf = (token: string) => `/portal/${token}`;

/**
 * `POST /customers/{customerId}/portal-sessions`: a link to the customer's portal, signed with the account's portal
 * key (made on first use, sealed at rest), for this customer only, until `expiresIn` seconds from now (≤ 24 h), or
 * until the customer's links are revoked. Nothing is stored per link.
 */
export async function createPortalSession(
  call: CallScope,
  idOrExternalId: string,
  input: PortalSessionCreate,
  publicUrl: string | undefined,
  now: Date,
): Promise<PortalSession> {
  const customer = await call.repositories.customers.get(call.accountId, idOrExternalId);
  if (!customer) throw notFound("Customer");
  const expiresAt = Math.floor(now.getTime() / 1000) + (input.expiresIn ?? DEFAULT_PORTAL_SECONDS);
  const grant: PortalGrant = {
    accountId: call.accountId,
    customerId: customer.id,
    expiresAt,
    issuedAt: now.getTime(),
    ...(input.returnUrl !== undefined && { returnUrl: input.returnUrl }),
  };
  const token = signPortalToken(grant, await call.repositories.portalKeys.keyOf(call.accountId));
  return { url: `${publicUrl ?? ""}${portalPathOf(token)}`, expiresAt: new Date(expiresAt * 1000).toISOString() };
}

/**
 * `POST /customers/{customerId}/portal-sessions/revoke`: every portal link of the customer made until now answers 401
 * from now on (links made afterwards work), announced as `customer.portal_sessions_revoked`.
 */
export async function revokePortalSessions(
  call: CallScope,
  idOrExternalId: string,
  now: Date,
): Promise<PortalRevocation> {
  const customer = await call.repositories.customers.get(call.accountId, idOrExternalId);
  if (!customer) throw notFound("Customer");
  await call.repositories.portalKeys.revoke(call.accountId, customer.id, now);
  const revocation = { customerId: customer.id, revokedAt: now.toISOString() };
  await publishChange(call.repositories, call.accountId, call.log, {
    type: "customer.portal_sessions_revoked",
    data: revocation,
  });
  return revocation;
}

/** The grant of a portal link, its signature, expiry and revocation checked against its account; else a 401. */
export async function openPortal(call: Pick<CallScope, "repositories">, token: string, now: Date) {
  const accountId = claimedAccountOf(token);
  const key = accountId && (await call.repositories.portalKeys.existing(accountId));
  const grant = key ? verifyPortalToken(token, key, now) : "not a portal link";
  if (typeof grant === "string") throw unauthorized(`The portal link is refused: ${grant}`);
  const revokedAt = await call.repositories.portalKeys.revokedAt(grant.accountId, grant.customerId);
  if (isRevoked(grant, revokedAt?.getTime()))
    throw unauthorized("The portal link is refused: the customer's links were revoked");
  return grant;
}

/** The portal's content with the credit balance in micro-units (the router turns it into the page's decimal). */
export interface PortalView extends PortalContent {
  creditBalance: Micros;
}

/**
 * What the portal's page shows: the customer's finalized and voided invoices, credit notes, credit balance and the
 * open cycle's usage per meter (read as entitlements are: bounded by the meters its contracts in force name).
 */
export async function portalView(call: CallScope, grant: PortalGrant): Promise<PortalView> {
  const { repositories, accountId } = call;
  const customer = await repositories.customers.get(accountId, grant.customerId);
  if (!customer) throw notFound("Customer");
  const page = await repositories.invoices.list(accountId, {
    customerId: grant.customerId,
    status: "FINALIZED",
    limit: PORTAL_LIST_LIMIT,
  });
  const voided = await repositories.invoices.list(accountId, {
    customerId: grant.customerId,
    status: "VOIDED",
    limit: PORTAL_LIST_LIMIT,
  });
  const invoices = await completeInvoices(call, [...page.items, ...voided.items]);
  const notes = await repositories.creditNotes.list(accountId, {
    customerId: grant.customerId,
    limit: PORTAL_LIST_LIMIT,
  });
  const { balanceMicros } = await creditBalanceOf(call, grant.customerId);
  return {
    customerName: customer.name,
    invoices: invoices.filter((invoice) => invoice.finalizedAt !== null),
    creditNotes: notes.items,
    creditBalance: balanceMicros,
    currency: invoices[0]?.currency ?? "USD",
    canPay: (await connectedProvider(call)) !== undefined,
    usage: await entitlementsOf(call, grant.customerId),
  };
}

/** An invoice of the link's customer only: another customer's (or account's) is a 404, as a missing one. */
export async function portalInvoice(call: CallScope, grant: PortalGrant, invoiceId: string) {
  const found = await invoiceWithParties(call.repositories, call.accountId, invoiceId).catch(() => undefined);
  if (!found || found.invoice.customerId !== grant.customerId || found.invoice.status === "DRAFT")
    throw notFound("Invoice");
  return found;
}

/**
 * The portal's "Pay": a Checkout Session of the provider for the invoice's amount due now, keyed by the invoice, the
 * amount and the day (a second click the same day opens the same page). Its PaymentIntent carries the account and
 * invoice, so `payment_intent.succeeded` records the payment like any charge. 409 when nothing is due or no provider
 * is connected.
 */
export async function portalCheckout(call: CallScope, grant: PortalGrant, invoiceId: string, returnTo: string) {
  await portalInvoice(call, grant, invoiceId);
  const invoice = (await readInvoice(call, invoiceId))?.invoice as Invoice;
  if (invoice.status !== "FINALIZED" || invoice.amountDue <= 0) throw conflict("Nothing is due on this invoice");
  const charge = await connectedProvider(call);
  if (!charge) throw conflict("No payment provider is connected");
  const customer = await call.repositories.customers.get(call.accountId, grant.customerId);
  const customerRef = customer ? charge.module.customerRefOf(customer) : undefined;
  const amountMinor = Math.round(microsOf(invoice.amountDue) / microsPerMinorUnit(invoice.currency));
  const day = new Date().toISOString().slice(0, 10);
  return charge.module.createCheckoutSession(charge.connection, {
    ...(customerRef !== undefined && { customerRef }),
    amountMinor,
    currency: invoice.currency,
    description: `Invoice ${invoice.number ?? invoice.id}`,
    successUrl: grant.returnUrl ?? returnTo,
    cancelUrl: returnTo,
    idempotencyKey: `billing-${call.accountId}-invoice-${invoice.id}-checkout-${amountMinor}-${day}`,
    metadata: { accountId: call.accountId, invoiceId: invoice.id },
  });
}
