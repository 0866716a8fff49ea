// The service against localstripe (PyPI), a stateful fake Stripe: a card charged off-session and a card declined at
// charge time, a partial refund through a PROVIDER credit note, and localstripe's own signed `payment_intent.*`
// webhooks received by the service's webhook route (its Stripe-Signature check, the real path). Run by
// scripts/stripe-doubles.sh, which starts both.
//   tsx scripts/localstripe-calls.ts <service base> <admin token> <localstripe base> <localstripe log>
import { readFileSync } from "node:fs";

const [base = "", adminToken = "", stripeBase = "", stripeLog = ""] = process.argv.slice(2);
const WEBHOOK_SECRET = "whsec_localstripe_0123456789";
let passed = 0;
let failed = 0;

function check(name: string, ok: boolean, detail: unknown = "") {
  if (ok) passed += 1;
  else failed += 1;
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${ok ? "" : `: ${JSON.stringify(detail)}`}`);
}

async function api(method: string, path: string, token: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the answers are read loosely, each check says what it expects
  return { status: response.status, body: (await response.json().catch(() => ({}))) as any };
}

/** localstripe's own API, form-encoded as Stripe's. */
async function stripe(method: string, path: string, form: Record<string, string> = {}) {
  const response = await fetch(`${stripeBase}${path}`, {
    method,
    headers: { authorization: "Bearer sk_test_localstripe", "content-type": "application/x-www-form-urlencoded" },
    ...(method !== "GET" && { body: new URLSearchParams(form).toString() }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: localstripe's answers, read loosely
  return (await response.json()) as any;
}

const delivered = (type: string) =>
  readFileSync(stripeLog, "utf8")
    .split("\n")
    .filter((line) => line.includes(`webhook "${type}"`));

async function waitFor(what: () => boolean, seconds = 15) {
  for (let tries = 0; tries < seconds * 10 && !what(); tries += 1) await new Promise((r) => setTimeout(r, 100));
  return what();
}

const created = await api("POST", "/admin/accounts", adminToken, { name: "localstripe" });
const token = created.body.token as string;
const accountId = created.body.account.id as string;
await api("PATCH", `/admin/accounts/${accountId}`, adminToken, { autoCollect: false });
const put = await api("PUT", "/payment-providers/stripe", token, {
  secretKey: "sk_test_localstripe",
  webhookSecret: WEBHOOK_SECRET,
  apiBase: stripeBase,
});
check("PUT /payment-providers/stripe", put.status === 200, put.body);
// Every event localstripe makes goes to every registered webhook: the service's route for this account.
await fetch(`${stripeBase}/_config/webhooks/billing`, {
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams({ url: `${base}/providers/stripe/webhooks/${accountId}`, secret: WEBHOOK_SECRET }),
});

/** A customer of ours linked to a localstripe customer (made by the sync) whose default card is `card`. */
async function customerWith(card: string) {
  const customerId = (await api("POST", "/customers", token, { name: `Pays with ${card}` })).body.customer.id;
  const synced = await api("POST", `/customers/${customerId}/payment-provider/sync`, token);
  const stripeCustomer = synced.body.customer?.paymentProvider?.stripeCustomerId as string;
  check(`sync ${card}: a localstripe customer, no payment method yet`, synced.body.customer?.paymentMethod === "NONE");
  const method = await stripe("POST", `/v1/payment_methods/${card}/attach`, { customer: stripeCustomer });
  await stripe("POST", `/v1/customers/${stripeCustomer}`, { "invoice_settings[default_payment_method]": method.id });
  const again = await api("POST", `/customers/${customerId}/payment-provider/sync`, token);
  check(`sync ${card} again: its default payment method is READY`, again.body.customer?.paymentMethod === "READY");
  const contract = await api("POST", "/contracts", token, {
    name: "Seat",
    customerId,
    startDate: "2026-01-01T00:00:00Z",
    products: [
      {
        displayName: "Seat",
        scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 },
        pricing: { type: "FLAT", price: 45.5 },
      },
    ],
  });
  check(`a contract of 45.50 a month for ${card}`, contract.status === 201, contract.body);
  return { customerId, contractId: contract.body.contract?.id as string };
}

const paying = await customerWith("pm_card_visa");
const declining = await customerWith("pm_card_chargeCustomerFail");
// A billing run may stop at its time budget: called again while it has more.
const invoicesMade: string[] = [];
let lastRun: unknown;
for (let more = true, calls = 0; more && calls < 20; calls += 1) {
  const run = await api("POST", "/billing-runs", token, { at: "2026-02-01T00:00:00Z" });
  lastRun = run.body;
  invoicesMade.push(...(run.body.run?.invoiceIds ?? []));
  more = run.body.run?.hasMore === true;
}
check("January billed: two invoices", invoicesMade.length === 2, lastRun);
const invoiceOf = async (contractId: string) =>
  (await api("GET", `/invoices?contractId=${contractId}`, token)).body.invoices?.[0] ?? {};

// 45.50 charged off-session on pm_card_visa: one PaymentIntent of 4550 cents, the invoice paid.
const paid = await invoiceOf(paying.contractId);
const charge = await api("POST", `/invoices/${paid.id}/collect`, token);
check("collect 45.50 on pm_card_visa: SUCCEEDED, Paid", charge.body.attempt?.status === "SUCCEEDED", charge.body);
const intentId = charge.body.attempt?.providerPaymentId as string;
const intent = await stripe("GET", `/v1/payment_intents/${intentId}`);
check(
  "localstripe holds one succeeded PaymentIntent of 4550 usd",
  intent.status === "succeeded" && intent.amount === 4550,
);
// Its signed payment_intent.succeeded reaches the service and is accepted; the payment still counts once.
check(
  "payment_intent.succeeded delivered, signature accepted",
  await waitFor(() => delivered("payment_intent.succeeded").some((line) => line.includes("successfully delivered"))),
  delivered("payment_intent.succeeded"),
);
const payments = (await api("GET", `/invoices/${paid.id}/payments`, token)).body.payments ?? [];
check(
  "one payment of 45.50, transactionId the PaymentIntent",
  payments.length === 1 && payments[0].amount === 45.5 && payments[0].transactionId === intentId,
  payments,
);

// 4000000000000341 attaches but is declined at charge time: a FAILED attempt, nothing paid.
const unpaid = await invoiceOf(declining.contractId);
const declined = await api("POST", `/invoices/${unpaid.id}/collect`, token);
check("collect on 4000000000000341: declined, FAILED", declined.body.attempt?.status === "FAILED", declined.body);
check(
  "payment_intent.payment_failed delivered, signature accepted",
  await waitFor(() => delivered("payment_intent.payment_failed").some((line) => line.includes("successfully"))),
  delivered("payment_intent.payment_failed"),
);
const stillDue = (await api("GET", `/invoices/${unpaid.id}`, token)).body.invoice;
check("the declined invoice still owes 45.50", stillDue?.amountDue === 45.5, stillDue);

// A PROVIDER credit note of 20.00: a partial refund of 2000 cents at localstripe, naming the note.
const note = await api("POST", "/credit-notes", token, {
  invoiceId: paid.id,
  amount: 20,
  reason: "PRODUCT_UNSATISFACTORY",
  refund: "PROVIDER",
});
const refundId = note.body.creditNote?.providerRefund?.refunds?.[0]?.refundId as string;
check("PROVIDER note 20.00: SUCCEEDED", note.body.creditNote?.providerRefund?.status === "SUCCEEDED", note.body);
const refund = await stripe("GET", `/v1/refunds/${refundId}`);
check(
  "localstripe's refund: 2000 cents of the PaymentIntent's charge, metadata naming the note",
  refund.amount === 2000 && refund.metadata?.creditNoteId === note.body.creditNote?.id,
  refund,
);
const tooMuch = await api("POST", "/credit-notes", token, {
  invoiceId: paid.id,
  amount: 25.51,
  reason: "OTHER",
  refund: "PROVIDER",
});
check("PROVIDER 25.51 refused: 45.50 − 20.00 = 25.50 left", tooMuch.status === 409, tooMuch.body);
const refused = readFileSync(stripeLog, "utf8").match(/webhook "[^"]+" failed with response code \d+/g) ?? [];
check("no webhook of localstripe's refused by the service", refused.length === 0, refused);

console.log(`localstripe: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
