import type { InvoiceDraft } from "@billing/shared";
import { describe, expect, it } from "vitest";
import { useTestServer } from "./support/harness.js";
import { breakdown, invoiceDraft as draft, insertInvoice } from "./support/invoices.js";
import { newId, walkRestPages } from "./support/server.js";

const server = useTestServer();

const insert = (accountId: string, draft: InvoiceDraft) => insertInvoice(server, accountId, draft);

const newCustomer = async (token: string, name: string): Promise<string> =>
  (await server.rest("POST", "/customers", { token, body: { name } })).body.customer.id;

describe("invoice fields", () => {
  it("round-trips every field with exact amounts over REST and tRPC", async () => {
    const { accountId, token } = await server.newAccount();
    const customerId = await newCustomer(token, "Exact");
    const full: InvoiceDraft = {
      customerId,
      contractId: newId(),
      currency: "USD",
      name: "March 2024",
      billingCycle: { startTime: "2024-03-01T00:00:00+02:00", endTime: "2024-04-01T00:00:00.000Z" },
      revenueBreakdown: {
        total: 0.3,
        subtotal: 0.1,
        overage: 0.2,
        discount: 0.000001,
        creditsUsed: 0.7,
        tax: 123456789.123456,
        taxInclusive: 0.000002,
      },
      billingStatus: "None",
      dueDate: "2024-04-30T12:00:00.000Z",
      amount: 0.3,
      lineItems: [
        {
          name: "API calls",
          catalogProductId: "cat-api",
          kind: "USAGE",
          quantity: 1234.5,
          unitPrice: 0.000123,
          revenueBreakdown: {
            total: 0.15,
            subtotal: 0.1,
            overage: 0.05,
            discount: 0,
            creditsUsed: 0,
            tax: 1e9,
            taxInclusive: 0,
          },
          taxes: [],
        },
        { name: "Platform", kind: "COMMITMENT", revenueBreakdown: breakdown(0.15), taxes: [] },
        { name: "Bundle", kind: "PRODUCT_GROUP", revenueBreakdown: breakdown(0), taxes: [] },
      ],
      taxExempt: false,
      taxSummary: [],
      paymentInfo: {
        transactionId: "txn_1",
        date: "2024-04-02T08:30:00-05:00",
        paymentMethod: "card",
        amount: 0.3,
        currency: "USD",
        status: "succeeded",
        note: "paid in full",
        customerId: "cus_stripe_1",
      },
    };

    const { invoice, created } = await insert(accountId, full);
    expect(created).toBe(true);
    const expected = {
      ...full,
      id: invoice.id,
      accountId,
      billingCycle: { startTime: "2024-02-29T22:00:00.000Z", endTime: "2024-04-01T00:00:00.000Z" },
      lineItems: full.lineItems.map((line) => ({ invoiceId: invoice.id, ...line })),
      paymentInfo: { ...full.paymentInfo, date: "2024-04-02T13:30:00.000Z" },
      // Stored by the repository as the engine stores a new invoice: a draft, nothing paid.
      status: "DRAFT",
      number: null,
      amountPaid: 0,
      amountCredited: 0,
      amountDue: 0.3,
      overdue: false,
      finalizedAt: null,
      voidedAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    };
    expect(invoice).toEqual(expected);
    expect(invoice.id).toMatch(/^[0-9a-f]{24}$/);
    expect(invoice.createdAt).toBe(invoice.updatedAt);

    const rest = await server.rest("GET", `/invoices/${invoice.id}`, { token });
    expect(rest.status).toBe(200);
    expect(rest.body).toEqual({ invoice });
    expect(await server.trpc(token).invoices.get.query({ invoiceId: invoice.id })).toEqual({ invoice });
    const listed = await server.rest("GET", "/invoices", { token });
    expect(listed.body.invoices).toEqual([invoice]);
  });

  it("leaves optional fields out rather than null", async () => {
    const { accountId, token } = await server.newAccount();
    const { invoice } = await insert(accountId, draft({ customerId: newId(), contractId: newId() }));
    const { body } = await server.rest("GET", `/invoices/${invoice.id}`, { token });
    expect(body.invoice).not.toHaveProperty("paymentInfo");
    expect(body.invoice.lineItems).toEqual([
      { invoiceId: invoice.id, name: "Seat", kind: "ONE_TIME", revenueBreakdown: breakdown(10), taxes: [] },
    ]);
  });
});

describe("listing invoices", () => {
  it("walks every invoice once, in creation order, with a stable total", async () => {
    const { accountId, token } = await server.newAccount();
    const customerId = newId();
    const created: string[] = [];
    for (let i = 0; i < 23; i += 1)
      created.push((await insert(accountId, draft({ customerId, contractId: newId() }))).invoice.id);

    const walk = await walkRestPages(server, token, "/invoices", "invoices", 5);
    expect(walk.ids).toEqual(created);
    expect(walk.pages).toBe(5);
    expect(new Set(walk.totals)).toEqual(new Set([23]));

    const first = await server.rest("GET", "/invoices", { token });
    expect(first.body).toMatchObject({ total: 23, hasMore: true, nextCursor: expect.any(String) });
    expect(first.body.invoices).toHaveLength(10);
    const all = await server.rest("GET", "/invoices?limit=1000", { token });
    expect(all.body).toMatchObject({ total: 23, hasMore: false });
    expect(all.body).not.toHaveProperty("nextCursor");
    const exact = await server.rest("GET", "/invoices?limit=23", { token });
    expect(exact.body.hasMore).toBe(false);

    const client = server.trpc(token);
    const page1 = await client.invoices.list.query({ limit: 20 });
    const page2 = await client.invoices.list.query({ limit: 20, cursor: page1.nextCursor });
    expect([...page1.invoices, ...page2.invoices].map((invoice) => invoice.id)).toEqual(created);
    expect(page2).toMatchObject({ total: 23, hasMore: false });
  });

  it("filters by customerId, by contractId and by both, with matching totals, across pages", async () => {
    const { accountId, token } = await server.newAccount();
    const [alpha, beta] = [newId(), newId()];
    const [alphaMain, alphaSide, betaMain] = [newId(), newId(), newId()];
    const ids: Record<string, string[]> = { alphaMain: [], alphaSide: [], betaMain: [] };
    for (let month = 1; month <= 4; month += 1) {
      ids.alphaMain!.push(
        (await insert(accountId, draft({ customerId: alpha, contractId: alphaMain }, month))).invoice.id,
      );
      ids.betaMain!.push(
        (await insert(accountId, draft({ customerId: beta, contractId: betaMain }, month))).invoice.id,
      );
      if (month <= 2)
        ids.alphaSide!.push(
          (await insert(accountId, draft({ customerId: alpha, contractId: alphaSide }, month))).invoice.id,
        );
    }
    const alphaAll = (
      await server.rest("GET", `/invoices?customerId=${alpha}&limit=1000`, { token })
    ).body.invoices.map((invoice: { id: string }) => invoice.id);
    expect(alphaAll.sort()).toEqual([...ids.alphaMain!, ...ids.alphaSide!].sort());

    const cases: Array<[string, string[]]> = [
      [`customerId=${alpha}`, alphaAll],
      [`customerId=${beta}`, ids.betaMain!],
      [`contractId=${alphaSide}`, ids.alphaSide!],
      [`customerId=${alpha}&contractId=${alphaMain}`, ids.alphaMain!],
      [`customerId=${beta}&contractId=${alphaMain}`, []],
      [`customerId=${newId()}`, []],
    ];
    for (const [query, expected] of cases) {
      const walk = await walkRestPages(server, token, `/invoices?${query}`, "invoices", 2);
      expect(walk.ids, query).toEqual(expected);
      expect(new Set(walk.totals), query).toEqual(new Set([expected.length]));
    }

    const client = server.trpc(token);
    const viaTrpc = await client.invoices.list.query({ contractId: betaMain, limit: 3 });
    expect(viaTrpc).toMatchObject({ total: 4, hasMore: true });
    const rest = await client.invoices.list.query({ contractId: betaMain, limit: 3, cursor: viaTrpc.nextCursor });
    expect([...viaTrpc.invoices, ...rest.invoices].map((invoice) => invoice.id)).toEqual(ids.betaMain);
  });

  it("takes a customer's externalId as customerId, as GET /customers/{customerId} does", async () => {
    const { accountId, token } = await server.newAccount();
    const created = await server.rest("POST", "/customers", { token, body: { name: "Ext", externalId: "crm-42" } });
    const customerId = created.body.customer.id;
    const own = (await insert(accountId, draft({ customerId, contractId: newId() }, 1))).invoice.id;
    await insert(accountId, draft({ customerId: newId(), contractId: newId() }, 1));
    const listed = async (query: string) =>
      (await server.rest("GET", `/invoices?${query}`, { token })).body.invoices.map((invoice: any) => invoice.id);
    expect(await listed("customerId=crm-42")).toEqual([own]);
    expect(await listed(`customerId=${customerId}`)).toEqual([own]);
    expect(await listed("customerId=crm-43")).toEqual([]);
  });
});

describe("invoice documentation", () => {
  it("documents both paths, the filters and the Invoice component in /openapi.json", async () => {
    const { body } = await server.rest("GET", "/openapi.json");
    const params = body.paths["/invoices"].get.parameters.map((param: { name: string }) => param.name);
    expect(params).toEqual(expect.arrayContaining(["limit", "cursor", "customerId", "contractId"]));
    const getInvoice = body.paths["/invoices/{invoiceId}"].get;
    expect(getInvoice.parameters).toMatchObject([{ in: "path", name: "invoiceId", required: true }]);
    expect(getInvoice.responses["200"].content["application/json"].schema).toMatchObject({
      properties: { invoice: { $ref: "#/components/schemas/Invoice" } },
    });
    expect(body.paths["/invoices"].post).toBeUndefined();
    expect(Object.keys(body.components.schemas)).toEqual(
      expect.arrayContaining(["Invoice", "LineItem", "RevenueBreakdown", "PaymentInfo"]),
    );
  });
});
