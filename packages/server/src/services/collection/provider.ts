import type { Customer, PaymentProviderName } from "@billing/shared";
import { DomainError } from "../../domain/errors.js";
import type { ProviderConnection } from "../../repositories/payment-providers.js";

/**
 * What the engine asks of a payment provider. Stripe is one module (stripe.ts); a second provider is a new module
 * implementing this and one entry in PROVIDERS (providers.ts), with no change elsewhere in the engine.
 */
export interface PaymentProviderModule {
  name: PaymentProviderName;
  /** Where its API is reached when the connection names no `apiBase`. */
  defaultApiBase: string;
  /** The customer's id at this provider, from the customer's `paymentProvider` link. */
  customerRefOf(customer: Customer): string | undefined;
  /** The link to store on the customer for a provider customer id. */
  linkOf(customerRef: string): NonNullable<Customer["paymentProvider"]>;
  createCustomer(connection: ProviderConnection, customer: Customer, idempotencyKey: string): Promise<string>;
  /** The customer's default payment method at the provider, or undefined when it has none. */
  defaultPaymentMethod(connection: ProviderConnection, customerRef: string): Promise<string | undefined>;
  /** One charge, made at most once for its idempotency key however often it is asked. */
  charge(connection: ProviderConnection, request: ChargeRequest): Promise<ChargeOutcome>;
  /** One refund of a payment, made at most once for its idempotency key; FAILED: the provider refused it. */
  refund(connection: ProviderConnection, request: RefundRequest): Promise<RefundOutcome>;
  /** A page of the provider's where the customer pays `amountMinor` once (the customer portal's "Pay"). */
  createCheckoutSession(connection: ProviderConnection, request: CheckoutRequest): Promise<{ id: string; url: string }>;
  /** The event a webhook carries, its signature verified against the connection's secret; a string: why refused. */
  verifiedEvent(
    connection: ProviderConnection,
    rawBody: string,
    signature: string | undefined,
    now: Date,
  ): ProviderEvent | string;
}

export interface ChargeRequest {
  /** In the currency's minor units (cents). */
  amountMinor: number;
  currency: string;
  customerRef: string;
  paymentMethod: string;
  idempotencyKey: string;
  /** Names the account, invoice and step: an event of a charge the account did not make carries none of it. */
  metadata: ChargeMetadata;
}

export interface ChargeMetadata {
  accountId: string;
  invoiceId: string;
  attempt: string;
  step: string;
}

export type ChargeOutcome =
  | { status: "SUCCEEDED"; paymentId: string }
  | { status: "PENDING"; paymentId: string }
  | { status: "FAILED"; paymentId?: string; failureMessage: string };

export interface CheckoutRequest {
  customerRef?: string;
  amountMinor: number;
  currency: string;
  /** What the customer is shown paying: the invoice's number. */
  description: string;
  successUrl: string;
  cancelUrl: string;
  idempotencyKey: string;
  /** The account and invoice, as on our charges (no attempt: the payment is recorded by its succeeded event). */
  metadata: { accountId: string; invoiceId: string };
}

export interface RefundRequest {
  paymentId: string;
  amountMinor: number;
  idempotencyKey: string;
  /** The account and credit note: the refund's later events (failed, canceled) name the note they are about. */
  metadata: { accountId: string; creditNoteId: string };
}

export type RefundOutcome = { status: "SUCCEEDED"; refundId: string } | { status: "FAILED"; failureMessage: string };

/** A provider's event, in the engine's words. */
export interface ProviderEvent {
  id: string;
  /** The provider's own type, as recorded. */
  providerType: string;
  kind: "PAYMENT_SUCCEEDED" | "PAYMENT_FAILED" | "REFUNDED" | "REFUND_UPDATED" | "DISPUTED" | "OTHER";
  paymentId?: string;
  /** PAYMENT_SUCCEEDED: the amount received; REFUNDED: the payment's refunded total so far; DISPUTED: its amount. */
  amountMinor?: number;
  currency?: string;
  failureMessage?: string;
  /** DISPUTED: the dispute's own id, status and reason at the provider. */
  dispute?: { id: string; status: string; reason?: string };
  /** REFUND_UPDATED: the refund, its status now (FAILED: failed or canceled after it was accepted). */
  refund?: { id: string; status: "SUCCEEDED" | "PENDING" | "FAILED"; failureMessage?: string };
  metadata: Partial<ChargeMetadata> & { creditNoteId?: string };
}

/**
 * The provider could not be reached or answered with a fault: nothing is known of the call's outcome. A call that
 * meets it answers 503, its message naming the provider's call (never a 500: the fault is not ours).
 */
export class ProviderUnavailableError extends DomainError {
  constructor(message: string) {
    super("SERVICE_UNAVAILABLE", `The payment provider could not be reached, or failed; try again later (${message})`);
  }
}
