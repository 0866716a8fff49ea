import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { billingAccount, committed, monthly } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { PAYING_CARD, type StripeDouble, startStripeDouble } from "./support/stripe-double.js";

/**
 * Money collected (GET /reports/collections) and the account-wide invoice list within an issue date's bounds (GET
 * /invoices?issuedFrom&issuedTo), issue 50. Every figure below is computed by hand.
 */
const server = useTestServer();

let stripe: StripeDouble;
beforeAll(async () => {
  stripe = await startStripeDouble();
});
afterAll(() => stripe.close());

describe("GET /invoices?issuedFrom&issuedTo", () => {
  it("lists the invoices issued on three dates within the bounds, combined with a customer and a status", async () => {
    // A monthly 100.00 from Mar 1, 2026, due at issue: runs on Apr 6, May 6 and Jun 5 issue March, April and May.
    const account = await billingAccount(server, { netTermsDays: 0 });
    const contract = await account.contract({ startDate: "2026-03-01T00:00:00Z", products: [committed(1, 100)] });
    for (const at of ["2026-04-06T00:00:00Z", "2026-05-06T00:00:00Z", "2026-06-05T00:00:00Z"]) await account.run(at);
    const issued = Object.fromEntries(
      (await account.invoices(contract.id)).map((invoice) => [invoice.finalizedAt.slice(0, 10), invoice.id]),
    );
    expect(Object.keys(issued).sort()).toEqual(["2026-04-06", "2026-05-06", "2026-06-05"]);
    const list = async (query: string) => {
      const response = await server.rest("GET", `/invoices?${query}`, { token: account.token });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return { ids: response.body.invoices.map(({ id }: { id: string }) => id), total: response.body.total };
    };
    // May alone: the invoice issued May 6.
    expect(await list("issuedFrom=2026-05-01T00:00:00Z&issuedTo=2026-06-01T00:00:00Z")).toEqual({
      ids: [issued["2026-05-06"]],
      total: 1,
    });
    // From May 6 inclusive: May 6 and Jun 5; before May 6 (exclusive): Apr 6.
    expect((await list("issuedFrom=2026-05-06T00:00:00Z")).ids).toEqual([issued["2026-05-06"], issued["2026-06-05"]]);
    expect((await list("issuedTo=2026-05-06T00:00:00Z")).ids).toEqual([issued["2026-04-06"]]);
    // Paged: one a page, the cursor keeps the bounds.
    const first = await server.rest("GET", "/invoices?issuedFrom=2026-04-01T00:00:00Z&limit=2", {
      token: account.token,
    });
    expect(first.body).toMatchObject({ total: 3, hasMore: true });
    const rest = await list(`issuedFrom=2026-04-01T00:00:00Z&limit=2&cursor=${first.body.nextCursor}`);
    expect(rest).toEqual({ ids: [issued["2026-06-05"]], total: 3 });
    // With the customer and a status: May 6's when FINALIZED, none when VOIDED; another customer's: none.
    const may = `issuedFrom=2026-05-01T00:00:00Z&issuedTo=2026-06-01T00:00:00Z&customerId=${account.customerId}`;
    expect((await list(`${may}&status=FINALIZED`)).ids).toEqual([issued["2026-05-06"]]);
    expect((await list(`${may}&status=VOIDED`)).ids).toEqual([]);
    const other = await account.newCustomer({ name: "Other" });
    expect((await list(`issuedFrom=2026-04-01T00:00:00Z&customerId=${other}`)).ids).toEqual([]);

    // Not with overdue nor contractId (no index of both): 400 naming the field; a bad bound: 400 naming it.
    for (const [query, field] of [
      ["issuedFrom=2026-05-01T00:00:00Z&overdue=true", "overdue"],
      [`issuedTo=2026-05-01T00:00:00Z&contractId=${contract.id}`, "contractId"],
      ["issuedFrom=May", "issuedFrom"],
    ]) {
      const response = await server.rest("GET", `/invoices?${query}`, { token: account.token });
      expectError(response, 400, "BAD_REQUEST");
      expect(JSON.stringify(response.body)).toContain(field);
    }
  });
});

describe("GET /reports/collections", () => {
  it("sums payments by the date paid; OFFSET and CREDITS notes move no money", async () => {
    const account = await billingAccount(server, { netTermsDays: 0 });
    const contract = await account.contract({ startDate: "2026-03-01T00:00:00Z", products: [committed(1, 100)] });
    await account.run("2026-06-05T00:00:00Z");
    const [march, april, may] = await account.invoices(contract.id);
    // March paid 100.00 on Apr 10; April 60.00 on May 10 and 40.00 on Jun 2 (all recorded now, dated then).
    const pay = (invoice: { id: string }, amount: number, date: string) =>
      account.post(`/invoices/${invoice.id}/payments`, { amount, date }, 201);
    await pay(march, 100, "2026-04-10T00:00:00Z");
    await pay(april, 60, "2026-05-10T00:00:00Z");
    await pay(april, 40, "2026-06-02T00:00:00Z");
    // 25.00 off what May owes (OFFSET), 5.00 of April given back as credits (CREDITS): no money moves.
    await account.post("/credit-notes", { invoiceId: may.id, amount: 25, reason: "OTHER", refund: "OFFSET" }, 201);
    await account.post("/credit-notes", { invoiceId: april.id, amount: 5, reason: "OTHER", refund: "CREDITS" }, 201);
    const report = async (from: string, to: string, currency = "USD") => {
      const query = `from=${from}&to=${to}&currency=${currency}`;
      const response = await server.rest("GET", `/reports/collections?${query}`, { token: account.token });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body;
    };
    // May: the 60.00 of May 10 alone.
    expect(await report("2026-05-01T00:00:00Z", "2026-06-01T00:00:00Z")).toEqual({
      from: "2026-05-01T00:00:00.000Z",
      to: "2026-06-01T00:00:00.000Z",
      currency: "USD",
      collected: 60,
      refunded: 0,
      net: 60,
    });
    // April to June: 100.00 + 60.00 + 40.00 = 200.00; the window's end is exclusive (Jun 2 out).
    expect(await report("2026-04-01T00:00:00Z", "2026-07-01T00:00:00Z")).toMatchObject({ collected: 200 });
    expect(await report("2026-04-01T00:00:00Z", "2026-06-02T00:00:00Z")).toMatchObject({ collected: 160 });
    // Another currency: nothing. tRPC answers as REST.
    expect(await report("2026-04-01T00:00:00Z", "2026-07-01T00:00:00Z", "EUR")).toMatchObject({ collected: 0, net: 0 });
    const trpc = await account
      .trpc()
      .reports.collections.query({ from: "2026-05-01T00:00:00Z", to: "2026-06-01T00:00:00Z", currency: "USD" });
    expect(trpc.collected).toBe(60);
    // An empty or a too long window: 400 naming `to`.
    for (const to of ["2026-05-01T00:00:00Z", "2027-05-03T00:00:00Z"]) {
      const response = await server.rest(
        "GET",
        `/reports/collections?from=2026-05-01T00:00:00Z&to=${to}&currency=USD`,
        {
          token: account.token,
        },
      );
      expectError(response, 400, "BAD_REQUEST");
      expect(JSON.stringify(response.body)).toContain("to");
    }
  });

  it("shows a refund through Stripe apart: 45.50 collected by card, 20.00 refunded, 25.50 net", async () => {
    const account = await billingAccount(server, {
      paymentProvider: { stripeCustomerId: stripe.customer(PAYING_CARD) },
    });
    const connected = await server.rest("PUT", "/payment-providers/stripe", {
      token: account.token,
      body: {
        secretKey: "sk_test_double_0123456789",
        webhookSecret: "whsec_testsecret0123456789",
        apiBase: stripe.url,
      },
    });
    expect(connected.status, JSON.stringify(connected.body)).toBe(200);
    const contract = await account.contract({
      startDate: "2026-01-01T00:00:00.000Z",
      products: [{ displayName: "Seat", scheduling: monthly(1), pricing: { type: "FLAT", price: 45.5 } }],
    });
    await account.run("2026-02-01T00:00:00.000Z");
    const [invoice] = await account.invoices(contract.id);
    // Charged now by card: a payment of 45.50 dated now; then 20.00 refunded through Stripe.
    const from = new Date(Date.now() - 86_400_000).toISOString();
    expect((await account.post(`/invoices/${invoice.id}/collect`, {})).invoice.billingStatus).toBe("Paid");
    const refund = { invoiceId: invoice.id, amount: 20, reason: "PRODUCT_UNSATISFACTORY", refund: "PROVIDER" };
    await account.post("/credit-notes", refund, 201);
    const to = new Date(Date.now() + 86_400_000).toISOString();
    const response = await server.rest("GET", `/reports/collections?from=${from}&to=${to}&currency=USD`, {
      token: account.token,
    });
    // 45.50 − 20.00 = 25.50.
    expect(response.body).toMatchObject({ collected: 45.5, refunded: 20, net: 25.5 });
  });
});
