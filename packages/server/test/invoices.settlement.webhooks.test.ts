import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { committed } from "./support/billing.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { FAST, type Receiver, startReceiver } from "./support/webhook-receiver.js";

/** invoice.paid, invoice.voided and credit_note.created, as an endpoint receives them. */
let server: TestServer;
let hooks: Receiver;
beforeAll(async () => {
  server = await startTestServer({ webhooks: FAST });
  hooks = await startReceiver();
});
afterAll(async () => {
  await hooks.close();
  await server.close();
});

describe("webhooks of payments, voids and credit notes", () => {
  it("credit_note.created, invoice.paid once (30 − 5 credited = 25 paid in two parts), invoice.voided", async () => {
    const { token } = await server.newAccount();
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await server.rest(method, path, { token, body });
      expect(response.status, `${path}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
      return response.body;
    };
    const eventTypes = ["invoice.paid", "invoice.voided", "credit_note.created"];
    const { secret } = await call("POST", "/webhook-endpoints", { url: hooks.url, eventTypes });
    const customer = (await call("POST", "/customers", { name: "Hooked" })).customer;
    for (const name of ["Paid plan", "Voided plan"]) {
      const products = [committed(3, 10)];
      await call("POST", "/contracts", { customerId: customer.id, name, startDate: "2024-01-01T00:00:00Z", products });
    }
    const [paid, voided] = (await call("POST", "/billing-runs", { at: "2024-02-01T00:00:00Z" })).run.invoiceIds;

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
