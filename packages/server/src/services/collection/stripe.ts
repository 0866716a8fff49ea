import type { Customer } from "@billing/shared";
import { refusalOfSignature } from "../../domain/collection/stripe-signature.js";
import type { ProviderConnection } from "../../repositories/payment-providers.js";
import {
  type ChargeMetadata,
  type ChargeOutcome,
  type PaymentProviderModule,
  type ProviderEvent,
  ProviderUnavailableError,
} from "./provider.js";

/** How long one call to Stripe may take before its outcome counts as unknown (the attempt is made again later). */
const CALL_TIMEOUT_MS = 15_000;

type FormValue = string | number | boolean | undefined | FormValue[] | { [key: string]: FormValue };
type Form = Record<string, FormValue>;

/** Stripe's form encoding: `metadata[key]=value` for a nested object, `line_items[0][quantity]=1` for a list. */
function encodeForm(form: Form): string {
  const pairs: [string, string][] = [];
  const add = (key: string, value: FormValue) => {
    if (value === undefined) return;
    if (Array.isArray(value)) for (const [index, item] of value.entries()) add(`${key}[${index}]`, item);
    else if (typeof value === "object")
      for (const [inner, item] of Object.entries(value)) add(`${key}[${inner}]`, item);
    else pairs.push([key, String(value)]);
  };
  for (const [key, value] of Object.entries(form)) add(key, value);
  return new URLSearchParams(pairs).toString();
}

interface StripeAnswer {
  status: number;
  body: Record<string, unknown>;
}

async function call(
  connection: ProviderConnection,
  method: "GET" | "POST",
  path: string,
  { form, idempotencyKey }: { form?: Form; idempotencyKey?: string } = {},
): Promise<StripeAnswer> {
  let response: Response;
  try {
    response = await fetch(new URL(path, connection.apiBase), {
      method,
      headers: {
        authorization: `Bearer ${connection.secretKey}`,
        "stripe-version": "2024-06-20",
        ...(form && { "content-type": "application/x-www-form-urlencoded" }),
        ...(idempotencyKey && { "idempotency-key": idempotencyKey }),
      },
      ...(form && { body: encodeForm(form) }),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
  } catch (error) {
    throw new ProviderUnavailableError(`Stripe ${method} ${path} failed: ${(error as Error).message}`);
  }
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  // 5xx, 429 and 409 (a concurrent request with the same key): the outcome is not known yet.
  if (response.status >= 500 || response.status === 429 || response.status === 409)
    throw new ProviderUnavailableError(`Stripe ${method} ${path} answered ${response.status}`);
  return { status: response.status, body };
}

const errorOf = (body: Record<string, unknown>) => (body.error ?? {}) as Record<string, unknown>;

function refused(answer: StripeAnswer, what: string): never {
  throw new ProviderUnavailableError(
    `Stripe refused ${what} (${answer.status}): ${String(errorOf(answer.body).message)}`,
  );
}

const idOf = (value: unknown): string | undefined =>
  typeof value === "string" ? value : typeof value === "object" && value ? (value as { id?: string }).id : undefined;

/** A PaymentIntent's outcome: succeeded, still processing, or failed (needs another payment method). */
function outcomeOf(intent: Record<string, unknown>): ChargeOutcome {
  const paymentId = String(intent.id);
  if (intent.status === "succeeded") return { status: "SUCCEEDED", paymentId };
  if (intent.status === "processing") return { status: "PENDING", paymentId };
  const lastError = (intent.last_payment_error ?? {}) as { message?: string };
  return { status: "FAILED", paymentId, failureMessage: lastError.message ?? `PaymentIntent ${intent.status}` };
}

function eventOf(raw: Record<string, unknown>): ProviderEvent {
  const type = String(raw.type);
  const object = ((raw.data as { object?: Record<string, unknown> } | undefined)?.object ?? {}) as Record<
    string,
    unknown
  >;
  const metadata = (object.metadata ?? {}) as Partial<ChargeMetadata>;
  const base = { id: String(raw.id), providerType: type, metadata };
  switch (type) {
    case "payment_intent.succeeded":
      return {
        ...base,
        kind: "PAYMENT_SUCCEEDED",
        paymentId: String(object.id),
        amountMinor: Number(object.amount_received ?? object.amount),
        currency: String(object.currency).toUpperCase(),
      };
    case "payment_intent.payment_failed":
      return {
        ...base,
        kind: "PAYMENT_FAILED",
        paymentId: String(object.id),
        failureMessage: (object.last_payment_error as { message?: string } | undefined)?.message ?? "payment failed",
      };
    case "charge.refunded":
      return {
        ...base,
        kind: "REFUNDED",
        paymentId: idOf(object.payment_intent),
        amountMinor: Number(object.amount_refunded),
      };
    case "charge.refund.updated": {
      // A refund's status moved: `failed` or `canceled` after Stripe accepted it (the card network refused it).
      const status = String(object.status);
      const failed = status === "failed" || status === "canceled";
      return {
        ...base,
        kind: "REFUND_UPDATED",
        paymentId: idOf(object.payment_intent),
        refund: {
          id: String(object.id),
          status: failed ? "FAILED" : status === "succeeded" ? "SUCCEEDED" : "PENDING",
          ...(failed && { failureMessage: `refund ${status}: ${String(object.failure_reason ?? "unknown")}` }),
        },
      };
    }
    case "charge.dispute.created":
    case "charge.dispute.closed":
      return {
        ...base,
        kind: "DISPUTED",
        paymentId: idOf(object.payment_intent),
        amountMinor: Number(object.amount),
        dispute: {
          id: String(object.id),
          status: String(object.status ?? (type === "charge.dispute.created" ? "needs_response" : "closed")),
          ...(typeof object.reason === "string" && { reason: object.reason }),
        },
      };
    default:
      return { ...base, kind: "OTHER" };
  }
}

/** Stripe: PaymentIntents created and confirmed off-session in one call, refunds, signed webhooks. */
export const stripeProvider: PaymentProviderModule = {
  name: "stripe",
  defaultApiBase: "https://api.stripe.com",

  customerRefOf: (customer: Customer) => customer.paymentProvider?.stripeCustomerId,
  linkOf: (customerRef) => ({ stripeCustomerId: customerRef }),

  async createCustomer(connection, customer, idempotencyKey) {
    const answer = await call(connection, "POST", "/v1/customers", {
      idempotencyKey,
      form: {
        name: customer.name,
        email: customer.contacts?.[0]?.email,
        metadata: { accountId: connection.accountId, customerId: customer.id },
      },
    });
    if (answer.status !== 200) refused(answer, "the customer");
    return String(answer.body.id);
  },

  async defaultPaymentMethod(connection, customerRef) {
    const answer = await call(connection, "GET", `/v1/customers/${encodeURIComponent(customerRef)}`);
    if (answer.status !== 200) refused(answer, `customer ${customerRef}`);
    const settings = (answer.body.invoice_settings ?? {}) as { default_payment_method?: unknown };
    return idOf(settings.default_payment_method) ?? idOf(answer.body.default_source);
  },

  async charge(connection, request) {
    // Only amount, currency, customer, payment_method, metadata, confirm and off_session: confirmed at creation.
    const answer = await call(connection, "POST", "/v1/payment_intents", {
      idempotencyKey: request.idempotencyKey,
      form: {
        amount: request.amountMinor,
        currency: request.currency.toLowerCase(),
        customer: request.customerRef,
        payment_method: request.paymentMethod,
        confirm: true,
        off_session: true,
        metadata: { ...request.metadata },
      },
    });
    if (answer.status === 200) return outcomeOf(answer.body);
    // A decline is 402 with the PaymentIntent left needing another payment method.
    const error = errorOf(answer.body);
    const intent = error.payment_intent as Record<string, unknown> | undefined;
    if (answer.status === 402 || error.type === "card_error") {
      return {
        status: "FAILED",
        ...(intent?.id !== undefined && { paymentId: String(intent.id) }),
        failureMessage: String(error.message ?? "card declined"),
      };
    }
    refused(answer, "the charge");
  },

  async refund(connection, request) {
    const answer = await call(connection, "POST", "/v1/refunds", {
      idempotencyKey: request.idempotencyKey,
      form: { payment_intent: request.paymentId, amount: request.amountMinor, metadata: { ...request.metadata } },
    });
    // Accepted (succeeded, or pending at the card network): made. A refusal (4xx: more than the charge, a charge
    // already refunded) is final for this key.
    if (answer.status === 200 && answer.body.status !== "failed" && answer.body.status !== "canceled")
      return { status: "SUCCEEDED", refundId: String(answer.body.id) };
    const message = String(
      errorOf(answer.body).message ?? answer.body.failure_reason ?? `refund ${answer.body.status}`,
    );
    return { status: "FAILED", failureMessage: message };
  },

  async createCheckoutSession(connection, request) {
    // A hosted page paying the amount once; its PaymentIntent carries our metadata, so its succeeded event pays the
    // invoice like any charge of ours.
    const answer = await call(connection, "POST", "/v1/checkout/sessions", {
      idempotencyKey: request.idempotencyKey,
      form: {
        mode: "payment",
        customer: request.customerRef,
        success_url: request.successUrl,
        cancel_url: request.cancelUrl,
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: request.currency.toLowerCase(),
              unit_amount: request.amountMinor,
              product_data: { name: request.description },
            },
          },
        ],
        metadata: { ...request.metadata },
        payment_intent_data: { metadata: { ...request.metadata } },
      },
    });
    if (answer.status !== 200 || typeof answer.body.url !== "string") refused(answer, "the checkout session");
    return { id: String(answer.body.id), url: answer.body.url as string };
  },

  verifiedEvent(connection, rawBody, signature, now) {
    const refusal = refusalOfSignature(rawBody, signature, connection.webhookSecret, now);
    if (refusal) return refusal;
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawBody);
    } catch {
      return "the body is not JSON";
    }
    if (typeof parsed !== "object" || parsed === null || typeof (parsed as { id?: unknown }).id !== "string")
      return "the body is not a Stripe event";
    return eventOf(parsed as Record<string, unknown>);
  },
};
