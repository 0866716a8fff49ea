import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A small stateful Stripe of our own, on 127.0.0.1, speaking the few endpoints the service calls: customers (create,
 * read, default payment method), PaymentIntents created and confirmed off-session in one call, refunds (at most what
 * the PaymentIntent received, as Stripe refuses more). It keeps
 * Stripe's idempotency (a repeated key answers the first answer again, and makes nothing) and records every request
 * so tests assert the keys the service sent. Cards: `pm_card_visa` pays, `pm_card_chargeCustomerFail` (Stripe's
 * 4000000000000341) attaches but is declined at charge time. No network, nothing to install.
 */
export interface StripeRequest {
  method: string;
  path: string;
  idempotencyKey?: string;
  form: Record<string, string>;
}

export const DECLINING_CARD = "pm_card_chargeCustomerFail";
export const PAYING_CARD = "pm_card_visa";

export async function startStripeDouble() {
  const requests: StripeRequest[] = [];
  const customers = new Map<string, { id: string; defaultPaymentMethod: string | null; name?: string }>();
  const intents = new Map<string, Record<string, unknown>>();
  const kept = new Map<string, { status: number; body: unknown }>();
  /** Checkout Sessions made, by id: their form (amount, metadata for the PaymentIntent a payment makes). */
  const sessions = new Map<string, Record<string, string>>();
  let counter = 0;
  /** Answers 500 to the next N PaymentIntent creations after making them (a time-out after the charge). */
  let faultsAfterCharge = 0;
  /** Answers 500 to the next N refunds without making them (Stripe unreachable). */
  let refundFaults = 0;
  /** What was refunded of each PaymentIntent (Stripe's charge `amount_refunded`). */
  const refundedOf = new Map<string, number>();
  const nextId = (prefix: string) => {
    counter += 1;
    return `${prefix}_double${counter.toString().padStart(6, "0")}`;
  };

  function route(request: StripeRequest): { status: number; body: unknown } {
    const { method, path, form } = request;
    if (method === "POST" && path === "/v1/customers") {
      const customer = { id: nextId("cus"), defaultPaymentMethod: null, name: form.name };
      customers.set(customer.id, customer);
      return { status: 200, body: { id: customer.id, object: "customer", invoice_settings: {} } };
    }
    const customerPath = /^\/v1\/customers\/([^/]+)$/.exec(path);
    if (method === "GET" && customerPath) {
      const customer = customers.get(decodeURIComponent(customerPath[1] as string));
      if (!customer)
        return { status: 404, body: { error: { type: "invalid_request_error", message: "No such customer" } } };
      return {
        status: 200,
        body: { id: customer.id, invoice_settings: { default_payment_method: customer.defaultPaymentMethod } },
      };
    }
    if (method === "POST" && path === "/v1/payment_intents") {
      const metadata = Object.fromEntries(
        Object.entries(form)
          .filter(([key]) => key.startsWith("metadata["))
          .map(([key, value]) => [key.slice(9, -1), value]),
      );
      const id = nextId("pi");
      const declined = form.payment_method === DECLINING_CARD;
      const intent = {
        id,
        object: "payment_intent",
        amount: Number(form.amount),
        amount_received: declined ? 0 : Number(form.amount),
        currency: form.currency,
        customer: form.customer,
        payment_method: form.payment_method,
        metadata,
        status: declined ? "requires_payment_method" : "succeeded",
        latest_charge: { id: nextId("ch"), object: "charge" },
        ...(declined && { last_payment_error: { code: "card_declined", message: "Your card was declined." } }),
      };
      intents.set(id, intent);
      if (declined) {
        return {
          status: 402,
          body: {
            error: {
              type: "card_error",
              code: "card_declined",
              message: "Your card was declined.",
              payment_intent: intent,
            },
          },
        };
      }
      return { status: 200, body: intent };
    }
    if (method === "POST" && path === "/v1/checkout/sessions") {
      const id = nextId("cs");
      sessions.set(id, form);
      return {
        status: 200,
        body: {
          id,
          object: "checkout.session",
          mode: form.mode,
          amount_total: Number(form["line_items[0][price_data][unit_amount]"]),
          url: `https://checkout.stripe.test/c/pay/${id}`,
        },
      };
    }
    if (method === "POST" && path === "/v1/refunds") {
      const intent = intents.get(form.payment_intent ?? "");
      if (!intent)
        return { status: 400, body: { error: { type: "invalid_request_error", message: "No such intent" } } };
      const amount = Number(form.amount ?? intent.amount_received);
      const refunded = (refundedOf.get(String(intent.id)) ?? 0) + amount;
      if (refunded > Number(intent.amount_received)) {
        const message = `Refund amount (${amount}) is greater than unrefunded amount on charge`;
        return { status: 400, body: { error: { type: "invalid_request_error", message } } };
      }
      refundedOf.set(String(intent.id), refunded);
      const metadata = Object.fromEntries(
        Object.entries(form)
          .filter(([key]) => key.startsWith("metadata["))
          .map(([key, value]) => [key.slice(9, -1), value]),
      );
      return {
        status: 200,
        body: { id: nextId("re"), object: "refund", amount, payment_intent: intent.id, status: "succeeded", metadata },
      };
    }
    return {
      status: 404,
      body: { error: { type: "invalid_request_error", message: `Unrecognized ${method} ${path}` } },
    };
  }

  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    });

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const text = await read(req);
    const key = req.headers["idempotency-key"];
    const request: StripeRequest = {
      method: req.method ?? "",
      path: (req.url ?? "").split("?")[0] ?? "",
      ...(typeof key === "string" && { idempotencyKey: key }),
      form: Object.fromEntries(new URLSearchParams(text)),
    };
    requests.push(request);
    const keyed = request.idempotencyKey && `${request.path}:${request.idempotencyKey}`;
    let answer = keyed ? kept.get(keyed) : undefined;
    if (!answer && request.path === "/v1/refunds" && refundFaults > 0) {
      refundFaults -= 1;
      answer = { status: 503, body: { error: { type: "api_error", message: "unreachable" } } };
    } else if (!answer) {
      answer = route(request);
      if (keyed) kept.set(keyed, answer);
      if (request.path === "/v1/payment_intents" && faultsAfterCharge > 0) {
        faultsAfterCharge -= 1;
        answer = { status: 500, body: { error: { type: "api_error", message: "lost after the charge" } } };
      }
    }
    res.writeHead(answer.status, { "content-type": "application/json" });
    res.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    /** A customer at the double with `card` as its default payment method (none when undefined). */
    customer(card?: string) {
      const id = nextId("cus");
      customers.set(id, { id, defaultPaymentMethod: card ?? null });
      return id;
    },
    setDefaultCard(customerId: string, card: string) {
      const customer = customers.get(customerId);
      if (customer) customer.defaultPaymentMethod = card;
    },
    /** PaymentIntents made (a repeated idempotency key makes none). */
    intentsMade: () => [...intents.values()],
    faultAfterNextCharges(count: number) {
      faultsAfterCharge = count;
    },
    failNextRefunds(count: number) {
      refundFaults = count;
    },
    /**
     * The customer pays a Checkout Session on its page: a succeeded PaymentIntent of its amount, carrying the
     * session's `payment_intent_data[metadata]` (what Stripe's `payment_intent.succeeded` then reports).
     */
    payCheckout(sessionId: string) {
      const form = sessions.get(sessionId) ?? {};
      const prefix = "payment_intent_data[metadata][";
      const metadata = Object.fromEntries(
        Object.entries(form)
          .filter(([key]) => key.startsWith(prefix))
          .map(([key, value]) => [key.slice(prefix.length, -1), value]),
      );
      const amount = Number(form["line_items[0][price_data][unit_amount]"]);
      const intent = {
        id: nextId("pi"),
        object: "payment_intent",
        amount,
        amount_received: amount,
        currency: form["line_items[0][price_data][currency]"],
        metadata,
        status: "succeeded",
      };
      intents.set(intent.id, intent);
      return intent;
    },
    /** Refunds made at the double's "dashboard": what a person does there, outside the service. */
    refundInDashboard(paymentIntent: string, amount: number) {
      refundedOf.set(paymentIntent, (refundedOf.get(paymentIntent) ?? 0) + amount);
    },
    /** The PaymentIntent's refunded total, in minor units (a `charge.refunded` event's `amount_refunded`). */
    refundedOf: (paymentIntent: string) => refundedOf.get(paymentIntent) ?? 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type StripeDouble = Awaited<ReturnType<typeof startStripeDouble>>;
