import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { billingAccount, committed, day } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { newId, trpcErrorCode } from "./support/server.js";

/** POST /invoices/preview (docs/decisions.md, "Billing engine" → POST /invoices/preview). */
const server = useTestServer();

/** 10 × 99.99 = 999.90 per monthly cycle from Jan 1, 2024, plus a metered product. */
const seatsAndApi = {
  startDate: "2024-01-01T00:00:00Z",
  products: [
    committed(10, 99.99),
    {
      displayName: "API",
      catalogProductId: "api",
      scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 },
    },
  ],
};

describe("POST /invoices/preview", () => {
  it("previews as runs bill: the cycle cut at a termination, a cycle paused on its first day unbilled", async () => {
    const account = await billingAccount(server);
    const seats = { startDate: "2024-04-01T00:00:00Z", products: [committed(10, 30)] };
    const terminated = await account.contract({ ...seats, shouldProRateInvoices: true });
    const ended = await server.rest("POST", `/contracts/${terminated.id}/terminate`, {
      token: account.token,
      body: { at: "2024-04-21T00:00:00Z" },
    });
    expect(ended.status).toBe(200);
    const cut = await account.preview({ contractId: terminated.id, at: "2024-04-10T00:00:00Z" });
    expect(cut.status).toBe(200);
    // 10 × 30 = 300.00 a month, cut after Apr 20: 300 × 20 / 30 = 200.00, for Apr 1..Apr 21.
    expect(cut.body.invoice).toMatchObject({
      amount: 200,
      billingCycle: { startTime: day("2024-04-01"), endTime: day("2024-04-21") },
    });

    // Not prorated, paused from Apr 1 to May 16: April and May were paused on their first day, so runs bill neither.
    const paused = await account.contract(seats);
    for (const [status, effectiveFrom] of [
      ["Inactive", "2024-04-01T00:00:00Z"],
      ["Active", "2024-05-16T00:00:00Z"],
    ]) {
      const changed = await server.rest("PATCH", `/contracts/${paused.id}`, {
        token: account.token,
        body: { status, effectiveFrom },
      });
      expect(changed.status).toBe(200);
    }
    const april = await account.preview({ contractId: paused.id, at: "2024-04-20T00:00:00Z" });
    expect(april.status).toBe(404);
    // June was active on its first day: 300.00.
    expect((await account.preview({ contractId: paused.id, at: "2024-06-10T00:00:00Z" })).body.invoice.amount).toBe(
      300,
    );

    await account.run("2024-07-01T00:00:00Z");
    // What runs made agrees: 200.00 for the terminated contract; June and nothing before for the paused one.
    expect((await account.invoices(terminated.id)).map((invoice) => invoice.amount)).toEqual([200]);
    expect((await account.invoices(paused.id)).map((invoice) => invoice.amount)).toEqual([300]);
  });

  it("returns the current cycle's invoice with usage so far and credits applied, and stores nothing", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(seatsAndApi);
    await account.measure("api", "2024-01-05", 12);
    await account.measure("api", "2024-01-19", 0.5);
    await account.grant(300);
    const ledger = await account.ledger();

    const response = await account.preview({ contractId: contract.id, at: "2024-01-20T00:00:00Z" });
    expect(response.status).toBe(200);
    const { invoice } = response.body;
    expect(invoice).toMatchObject({
      customerId: account.customerId,
      contractId: contract.id,
      billingCycle: { startTime: day("2024-01-01"), endTime: day("2024-02-01") },
      // 999.90 − 300 credits = 699.90
      revenueBreakdown: { subtotal: 999.9, overage: 0, discount: 0, creditsUsed: 300, tax: 0, total: 699.9 },
      amount: 699.9,
      dueDate: day("2024-03-02"), // issued at the cycle's end, Feb 1, + 30 days
    });
    expect(invoice.lineItems.map((line: any) => [line.kind, line.quantity, line.revenueBreakdown.creditsUsed])).toEqual(
      [
        ["COMMITMENT", 10, 300],
        ["USAGE", 12.5, 0], // 12 + 0.5
      ],
    );
    expect(invoice).not.toHaveProperty("id");

    // Nothing stored: no invoice, no debit.
    expect(await account.allInvoices()).toEqual([]);
    expect(await account.ledger()).toEqual(ledger);

    // The run at the cycle's end makes the same invoice (same usage, same credits).
    await account.run("2024-02-01T00:00:00Z");
    const [stored] = await account.invoices(contract.id);
    const { id, accountId, createdAt, updatedAt, lineItems, ...fields } = stored;
    // Its life is the stored invoice's own: finalized at once (no draft period), numbered, 699.90 still due.
    const { status, number, amountPaid, amountCredited, amountDue, overdue, finalizedAt, voidedAt, ...priced } = fields;
    expect({ status, number, amountPaid, amountCredited, amountDue, voidedAt }).toEqual({
      status: "FINALIZED",
      number: "INV-000001",
      amountPaid: 0,
      amountCredited: 0,
      amountDue: 699.9,
      voidedAt: null,
    });
    expect({ ...priced, lineItems: lineItems.map(({ invoiceId, ...line }: any) => line) }).toEqual(invoice);
  });

  it("previews the cycle containing `at` (default now), which may start before the contract; also tRPC", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({ startDate: "2024-01-15T00:00:00Z", products: [committed(1, 10)] });
    const early = await account.preview({ contractId: contract.id, at: "2024-01-10T00:00:00Z" });
    expect(early.body.invoice.billingCycle).toEqual({ startTime: day("2024-01-01"), endTime: day("2024-02-01") });
    const later = await account.trpc().invoices.preview.mutate({ contractId: contract.id, at: "2024-03-31T23:59:59Z" });
    expect(later.invoice.billingCycle).toEqual({ startTime: day("2024-03-01"), endTime: day("2024-04-01") });

    const now = Date.now();
    const current = (await account.preview({ contractId: contract.id })).body.invoice.billingCycle;
    expect(Date.parse(current.startTime)).toBeLessThanOrEqual(now);
    expect(Date.parse(current.endTime)).toBeGreaterThan(now);
  });

  it("is 404 when no cycle contains `at`: there is no invoice to preview", async () => {
    const account = await billingAccount(server);
    const later = await account.contract({ startDate: "2024-01-15T00:00:00Z", products: [committed(1, 10, 15)] });
    const ended = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      endDate: "2024-03-01T00:00:00Z",
      products: [committed(1, 10)],
    });
    const empty = await account.contract({ startDate: "2024-01-01T00:00:00Z" });
    for (const [contractId, at] of [
      [later.id, "2024-01-14T23:59:59Z"], // its first cycle starts Jan 15
      [ended.id, "2024-03-01T00:00:00Z"], // ended (exclusive)
      [ended.id, "2025-06-01T00:00:00Z"],
      [empty.id, "2024-01-10T00:00:00Z"], // nothing to bill, no cycles
    ]) {
      const response = await account.preview({ contractId, at });
      expectError(response, 404, "NOT_FOUND");
      expect(response.body.issues).toEqual([expect.objectContaining({ path: "at" })]);
    }
    expect(
      await trpcErrorCode(account.trpc().invoices.preview.mutate({ contractId: ended.id, at: "2024-03-01T00:00:00Z" })),
    ).toBe("NOT_FOUND");
  });

  it("is 404 for an unknown, malformed or deleted contract", async () => {
    const account = await billingAccount(server);
    const deleted = await account.contract(seatsAndApi);
    await account.deleteContract(deleted.id);
    for (const contractId of [newId(), "not-an-id", deleted.id]) {
      expectError(await account.preview({ contractId, at: "2024-01-20T00:00:00Z" }), 404, "NOT_FOUND");
    }
    expect(await trpcErrorCode(account.trpc().invoices.preview.mutate({ contractId: deleted.id }))).toBe("NOT_FOUND");
  });

  it("is 400 for bad bodies", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(seatsAndApi);
    for (const body of [
      {},
      { at: "2024-01-20T00:00:00Z" },
      { contractId: 42 },
      { contractId: "" },
      { contractId: contract.id, at: "yesterday" },
      { contractId: contract.id, at: "2024-01-20" },
      { contractId: contract.id, at: 1705708800000 },
      { contractId: contract.id, customerId: account.customerId },
      [contract.id],
    ]) {
      expectError(await account.preview(body), 400, "BAD_REQUEST");
    }
    expect(await account.allInvoices()).toEqual([]);
  });

  it("previews the arrears invoice still accruing, not an empty prepaid one running beside it", async () => {
    const account = await billingAccount(server);
    const monthly = { duration: { unit: "MONTH", value: 1 }, billingDay: 1 };
    const contract = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      products: [
        { displayName: "Platform", scheduling: monthly, pricing: { type: "FLAT", price: 50 } },
        {
          displayName: "Setup",
          scheduling: monthly,
          pricing: { type: "ONE_TIME", price: 7 },
          paymentTerm: "Prepayment",
        },
      ],
    });
    const preview = async (at: string) => (await account.preview({ contractId: contract.id, at })).body.invoice;

    // January: the arrears invoice (FLAT 50.00) ends with the prepaid one (Setup 7.00); the arrears one is shown.
    expect(await preview("2024-01-20T00:00:00Z")).toMatchObject({
      revenueBreakdown: { total: 50 },
      lineItems: [{ kind: "FLAT", revenueBreakdown: { total: 50 } }],
      dueDate: day("2024-03-02"), // issued Feb 1 (the cycle's end) + 30 days
    });
    // February: the prepaid cycle bills nothing (Setup was January's); the arrears one still bills 50.00.
    expect(await preview("2024-02-10T00:00:00Z")).toMatchObject({
      revenueBreakdown: { total: 50 },
      billingCycle: { startTime: day("2024-02-01"), endTime: day("2024-03-01") },
    });
  });
});
