import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { committed } from "./support/billing.js";
import { testHooks } from "./support/hooks.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { FAST, type Receiver, startReceiver } from "./support/webhook-receiver.js";

/** invoice.paid, invoice.voided and credit_note.created, as an endpoint receives them. */
const faults = testHooks();
let server: TestServer;
let hooks: Receiver;
beforeAll(async () => {
  server = await startTestServer({ webhooks: FAST, hooks: faults.hooks });
  hooks = await startReceiver();
});
afterAll(async () => {
  await hooks.close();
  await server.close();
});

/**
 * A new account, its endpoint taking `eventTypes`, and two invoices of January 2024 of 3 × 10.00 = 30.00 each (one to
 * pay, one to void); `call` fails the test on any answer but a success.
 */
async function hookedInvoices(eventTypes: string[]) {
  const { token } = await server.newAccount();
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await server.rest(method, path, { token, body });
    expect(response.status, `${path}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
    return response.body;
  };
  const { endpoint, secret } = await call("POST", "/webhook-endpoints", { url: hooks.url, eventTypes });
  const customer = (await call("POST", "/customers", { name: "Hooked" })).customer;
  for (const name of ["Paid plan", "Voided plan"]) {
    const products = [committed(3, 10)];
    await call("POST", "/contracts", { customerId: customer.id, name, startDate: "2024-01-01T00:00:00Z", products });
  }
  const [paid, voided] = (await call("POST", "/billing-runs", { at: "2024-02-01T00:00:00Z" })).run.invoiceIds;
  return { call, endpointId: endpoint.id as string, secret: secret as string, paid, voided };
}

describe("webhooks of payments, voids and credit notes", () => {
  it("credit_note.created, invoice.paid once (30 − 5 credited = 25 paid in two parts), invoice.voided", async () => {
    const eventTypes = ["invoice.paid", "invoice.voided", "credit_note.created"];
    const { call, secret, paid, voided } = await hookedInvoices(eventTypes);

    const { creditNote } = await call("POST", "/credit-notes", {
      invoiceId: paid,
      amount: 5,
      reason: "OTHER",
      refund: "OFFSET",
    });
    await call("POST", `/invoices/${paid}/payments`, { amount: 10 });
    const settled = (await call("POST", `/invoices/${paid}/payments`, { amount: 15 })).invoice;
    expect(settled).toMatchObject({ billingStatus: "Paid", amountPaid: 25, amountCredited: 5, amountDue: 0 });
    const voidedInvoice = (await call("POST", `/invoices/${voided}/void`, {})).invoice;

    await hooks.waitFor((received) => received.length >= 3);
    const verifier = new Webhook(secret);
    const events = hooks.received.map(
      (request) => verifier.verify(request.body, request.headers) as { type: string; data: any },
    );
    const dataOf = (type: string) => events.filter((event) => event.type === type).map((event) => event.data);
    expect(dataOf("credit_note.created")).toEqual([creditNote]);
    expect(dataOf("invoice.paid")).toEqual([settled]);
    expect(dataOf("invoice.voided")).toEqual([voidedInvoice]);
  });
});

describe("the sweep", () => {
  it("records invoice.paid and invoice.voided that their request could not record", async () => {
    const { call, endpointId, paid, voided } = await hookedInvoices(["invoice.paid", "invoice.voided"]);
    // Each request's message fails to be stored: the change stands, the sweep records its message.
    faults.fail("webhooks.record", "invoice.paid", 1);
    faults.fail("webhooks.record", "invoice.voided", 1);
    expect((await call("POST", `/invoices/${paid}/payments`, { amount: 30 })).invoice.billingStatus).toBe("Paid");
    expect((await call("POST", `/invoices/${voided}/void`, {})).invoice.status).toBe("VOIDED");
    const delivered = async () => {
      const path = `/webhook-endpoints/${endpointId}/deliveries?limit=100`;
      return (await call("GET", path)).deliveries.map((delivery: { eventType: string }) => delivery.eventType).sort();
    };
    const deadline = Date.now() + 10_000;
    while ((await delivered()).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await delivered()).toEqual(["invoice.paid", "invoice.voided"]);
  });
});
