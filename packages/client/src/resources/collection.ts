import type {
  CollectionAttempt,
  Customer,
  Invoice,
  PaymentProvider,
  PortalRevocation,
  PortalSession,
  PortalSessionCreate,
  StripeProviderPut,
} from "@billing/shared";
import type { RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";

/** Collection (issue 46): the account's payment provider, customers linked to it, charges on request. */
export interface CollectionApi {
  /** Connects the account to Stripe (or replaces its keys); the answer never shows the keys. */
  connectStripe(params: StripeProviderPut, options?: RequestOptions): Promise<PaymentProvider>;
  /** The account's Stripe connection, without its keys. */
  getStripe(options?: RequestOptions): Promise<PaymentProvider>;
  disconnectStripe(options?: RequestOptions): Promise<void>;
  /** Links the customer to a Stripe customer (creating one when it names none) and reads its payment method. */
  syncCustomer(customerId: string, options?: RequestOptions): Promise<Customer>;
  /** A signed link (≤ 24 h) to the customer's own portal: invoices, PDFs, credit notes, balance, "Pay". */
  createPortalSession(
    customerId: string,
    params?: PortalSessionCreate,
    options?: RequestOptions,
  ): Promise<PortalSession>;
  /** Revokes every portal link of the customer made until now (they answer 401 before they expire). */
  revokePortalSessions(customerId: string, options?: RequestOptions): Promise<PortalRevocation>;
  /** Charges a finalized invoice's amount due now. */
  collect(invoiceId: string, options?: RequestOptions): Promise<{ invoice: Invoice; attempt?: CollectionAttempt }>;
}

export function collectionResource({ trpc, call }: Transport): CollectionApi {
  return {
    // Safe: a PUT of the same keys leaves the same connection.
    connectStripe: (params, options) =>
      call("safe", (attempt) => trpc.collection.putStripe.mutate(params, attempt), options).then(
        (r) => r.paymentProvider,
      ),
    getStripe: (options) =>
      call("safe", (attempt) => trpc.collection.getStripe.query({}, attempt), options).then((r) => r.paymentProvider),
    disconnectStripe: (options) =>
      call("safe", (attempt) => trpc.collection.deleteStripe.mutate({}, attempt), options).then(() => undefined),
    // Safe: the provider's customer is created once per customer (keyed by its id).
    syncCustomer: (customerId, options) =>
      call("safe", (attempt) => trpc.collection.syncCustomer.mutate({ customerId }, attempt), options).then(
        (r) => r.customer,
      ),
    // Safe: a second link is as good as the first (nothing is stored per link).
    createPortalSession: (customerId, params, options) =>
      call(
        "safe",
        (attempt) => trpc.collection.createPortalSession.mutate({ customerId, ...params }, attempt),
        options,
      ),
    // Safe: a repeat revokes the same links and those made in between, which the caller meant to revoke too.
    revokePortalSessions: (customerId, options) =>
      call("safe", (attempt) => trpc.collection.revokePortalSessions.mutate({ customerId }, attempt), options),
    // Keyed: a retry with the same Idempotency-Key answers the first attempt; the provider's key makes one charge.
    collect: (invoiceId, options) =>
      call("keyed", (attempt) => trpc.collection.collect.mutate({ invoiceId }, attempt), options),
  };
}
