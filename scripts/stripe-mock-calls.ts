// Every Stripe call the service makes (services/collection/stripe.ts), sent to stripe-mock, which validates each
// against Stripe's own OpenAPI spec and refuses unknown parameters: a call that passes here has Stripe's shape.
//   tsx scripts/stripe-mock-calls.ts http://127.0.0.1:12111
import { stripeProvider } from "../packages/server/src/services/collection/stripe.js";

const apiBase = process.argv[2] ?? "http://127.0.0.1:12111";
const connection = {
  accountId: "0123456789abcdef01234567",
  provider: "stripe" as const,
  secretKey: "sk_test_123",
  webhookSecret: "whsec_unused_here",
  apiBase,
};
const customer = { id: "0123456789abcdef01234568", name: "Billed Co", contacts: [{ email: "ap@example.com" }] };
let failed = 0;
let passed = 0;
async function check(name: string, run: () => Promise<unknown>, good: (answer: unknown) => boolean = () => true) {
  try {
    const answer = await run();
    if (!good(answer)) throw new Error(`unexpected answer ${JSON.stringify(answer)}`);
    passed += 1;
    console.log(`ok   ${name}`);
  } catch (error) {
    failed += 1;
    console.log(`FAIL ${name}: ${(error as Error).message}`);
  }
}

await check("POST /v1/customers", () =>
  stripeProvider.createCustomer(connection, customer as never, "customer-sync-check"),
);
await check("GET /v1/customers/{id}", () => stripeProvider.defaultPaymentMethod(connection, "cus_123"));
await check("POST /v1/payment_intents (confirm, off_session)", () =>
  stripeProvider.charge(connection, {
    amountMinor: 12000,
    currency: "USD",
    customerRef: "cus_123",
    paymentMethod: "pm_card_visa",
    idempotencyKey: "billing-check-invoice-1-attempt-1",
    metadata: { accountId: connection.accountId, invoiceId: "inv", attempt: "1", step: "CHARGE:1" },
  }),
);
await check(
  "POST /v1/refunds",
  () =>
    stripeProvider.refund(connection, {
      paymentId: "pi_123",
      amountMinor: 2000,
      idempotencyKey: "billing-check-r",
      metadata: { accountId: connection.accountId, creditNoteId: "0123456789abcdef01234569" },
    }),
  (answer) => (answer as { status: string }).status === "SUCCEEDED",
);
await check("POST /v1/checkout/sessions", () =>
  stripeProvider.createCheckoutSession(connection, {
    customerRef: "cus_123",
    amountMinor: 4550,
    currency: "USD",
    description: "Invoice INV-000001",
    successUrl: "https://app.example.com/billing",
    cancelUrl: "https://billing.example.com/portal/x",
    idempotencyKey: "billing-check-checkout",
    metadata: { accountId: connection.accountId, invoiceId: "inv" },
  }),
);
console.log(`stripe-mock: ${passed} calls accepted, ${failed} refused`);
process.exit(failed === 0 ? 0 : 1);
