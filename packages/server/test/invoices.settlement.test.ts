import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { type BillingAccount, billingAccount, committed } from "./support/billing.js";
import { testHooks } from "./support/hooks.js";
import { startTestServer, type TestServer } from "./support/server.js";

/** Payments and voids of invoices (docs/decisions.md, "Invoice life: payments, voids, credit notes"). */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const pay = (account: BillingAccount, invoiceId: string, body: Record<string, unknown>) =>
  server.rest("POST", `/invoices/${invoiceId}/payments`, { token: account.token, body });
const voidInvoice = (account: BillingAccount, invoiceId: string, body: Record<string, unknown> = {}) =>
  server.rest("POST", `/invoices/${invoiceId}/void`, { token: account.token, body });
const paymentsOf = async (account: BillingAccount, invoiceId: string) =>
  (await server.rest("GET", `/invoices/${invoiceId}/payments`, { token: account.token })).body.payments as any[];
const invoiceOf = async (account: BillingAccount, invoiceId: string) =>
  (await server.rest("GET", `/invoices/${invoiceId}`, { token: account.token })).body.invoice;
const rows = (entries: any[]) => entries.map((entry) => [entry.type, entry.amount, entry.balanceAfterEntry]);

/** January 2024 of a contract billing 3 seats at `price`: one FINALIZED invoice of 3 × price (less credits). */
async function januaryInvoice(account: BillingAccount, price = 10) {
  const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(3, price)] });
  await account.run("2024-02-01T00:00:00Z");
  const [invoice] = await account.invoices(contract.id);
  return invoice;
}

describe("payments", () => {
  it("pays 30 in two parts, 12.5 then 17.5: None → PartiallyPaid → Paid, paymentInfo the latest", async () => {
    const account = await billingAccount(server);
    const invoice = await januaryInvoice(account);
    expect(invoice).toMatchObject({ status: "FINALIZED", amount: 30, amountPaid: 0, amountDue: 30 });
    expect(invoice.billingStatus).toBe("None");

    const first = await pay(account, invoice.id, { amount: 12.5, date: "2024-02-10T00:00:00Z", paymentMethod: "wire" });
    expect(first.status).toBe(201);
    expect(first.body.payment).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      invoiceId: invoice.id,
      amount: 12.5,
      date: "2024-02-10T00:00:00.000Z",
      paymentMethod: "wire",
      createdAt: expect.any(String),
    });
    // 30 − 12.5 = 17.5 due.
    expect(first.body.invoice).toMatchObject({ billingStatus: "PartiallyPaid", amountPaid: 12.5, amountDue: 17.5 });
    expect(first.body.invoice.paymentInfo).toMatchObject({ amount: 12.5, paymentMethod: "wire", currency: "USD" });

    const second = await pay(account, invoice.id, { amount: 17.5, transactionId: "tx-second", note: "rest" });
    expect(second.status).toBe(201);
    expect(second.body.invoice).toMatchObject({ billingStatus: "Paid", amountPaid: 30, amountDue: 0 });
    expect(second.body.invoice.paymentInfo).toMatchObject({ amount: 17.5, transactionId: "tx-second", note: "rest" });
    expect(await invoiceOf(account, invoice.id)).toEqual(second.body.invoice);
    expect(await paymentsOf(account, invoice.id)).toEqual([first.body.payment, second.body.payment]);
  });

  it("more than is due is 409 naming the amount due (17.5 after 12.5 of 30), and records nothing", async () => {
    const account = await billingAccount(server);
    const invoice = await januaryInvoice(account);
    await pay(account, invoice.id, { amount: 12.5 });
    const over = await pay(account, invoice.id, { amount: 17.51 });
    expectError(over, 409, "CONFLICT");
    expect(over.body.message).toContain("17.5 USD");
    expect(over.body.issues).toEqual([{ path: "amount", message: "at most the amount due, 17.5" }]);
    expect(await paymentsOf(account, invoice.id)).toHaveLength(1);
    expect(await invoiceOf(account, invoice.id)).toMatchObject({ amountPaid: 12.5, amountDue: 17.5 });
  });

  it("a transactionId already recorded on the account is 409, on this invoice or another; recorded once", async () => {
    const account = await billingAccount(server);
    const invoice = await januaryInvoice(account);
    const other = await januaryInvoice(account, 7);
    expect((await pay(account, invoice.id, { amount: 10, transactionId: "tx-1" })).status).toBe(201);
    const again = await pay(account, invoice.id, { amount: 10, transactionId: "tx-1" });
    expectError(again, 409, "CONFLICT");
    expect(again.body.message).toContain("tx-1");
    expectError(await pay(account, other.id, { amount: 5, transactionId: "tx-1" }), 409, "CONFLICT");
    expect(await paymentsOf(account, invoice.id)).toHaveLength(1);
    expect(await paymentsOf(account, other.id)).toEqual([]);
    // Another account may use the same id: it is unique per account.
    const stranger = await billingAccount(server);
    const theirs = await januaryInvoice(stranger);
    expect((await pay(stranger, theirs.id, { amount: 10, transactionId: "tx-1" })).status).toBe(201);
  });

  it("a transactionId sent 6 times at once is recorded once: one 201, five 409", async () => {
    const account = await billingAccount(server);
    const invoice = await januaryInvoice(account);
    const sent = await Promise.all(
      Array.from({ length: 6 }, () => pay(account, invoice.id, { amount: 5, transactionId: "tx-resent" })),
    );
    expect(sent.map((response) => response.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    expect(await paymentsOf(account, invoice.id)).toHaveLength(1);
    // 30 − 5 = 25 due.
    expect(await invoiceOf(account, invoice.id)).toMatchObject({ amountPaid: 5, amountDue: 25 });
  });

  it.each([
    ["0", { amount: 0 }],
    ["negative", { amount: -1 }],
    ["7 decimals", { amount: 1.0000001 }],
    ["missing", {}],
  ])("amount %s is 400 naming amount", async (_, body) => {
    const account = await billingAccount(server);
    const invoice = await januaryInvoice(account);
    const refused = await pay(account, invoice.id, body);
    expectError(refused, 400, "BAD_REQUEST");
    expect(refused.body.issues.map((issue: any) => issue.path)).toContain("amount");
  });
});

describe("a body naming the path's invoice", () => {
  it("is 400 naming invoiceId, whether it names another invoice or the same; nothing is paid (issue 40)", async () => {
    const account = await billingAccount(server);
    const [first, second] = [await januaryInvoice(account), await januaryInvoice(account)];
    for (const invoiceId of [second.id, first.id]) {
      const refused = await pay(account, first.id, { invoiceId, amount: 5 });
      expectError(refused, 400, "BAD_REQUEST");
      expect(refused.body.issues).toEqual([{ path: "invoiceId", message: "unknown field: the path gives it" }]);
    }
    expect(await paymentsOf(account, first.id)).toEqual([]);
    expect(await paymentsOf(account, second.id)).toEqual([]);
    // Any path parameter, on any body: a customer's PATCH naming another customer is refused the same way.
    const renamed = await server.rest("PATCH", `/customers/${account.customerId}`, {
      token: account.token,
      body: { customerId: "someone-else", name: "Renamed" },
    });
    expect(renamed.body.issues).toEqual([{ path: "customerId", message: "unknown field: the path gives it" }]);
  });
});

describe("voids", () => {
  it("give the credits back exactly: A 20 (priority 10) and B 5 paid 25 of 30; one Reversal per grant", async () => {
    const account = await billingAccount(server);
    const a = (await account.grant(20, account.customerId, { priority: 10 })).entry;
    const b = (await account.grant(5)).entry;
    const invoice = await januaryInvoice(account);
    // 30: A's 20 first (priority 10), then B's 5; 5 left due.
    expect(invoice).toMatchObject({ revenueBreakdown: { creditsUsed: 25 }, amount: 5, amountDue: 5 });

    const voided = await voidInvoice(account, invoice.id, { reason: "issued in error" });
    expect(voided.status).toBe(200);
    expect(voided.body.invoice).toMatchObject({
      status: "VOIDED",
      number: invoice.number,
      amountDue: 0,
      billingStatus: "None",
      voidedAt: expect.any(String),
      voidReason: "issued in error",
    });
    const read = await server.rest("GET", `/invoices/${invoice.id}`, { token: account.token });
    expect(read.body.invoice.voidReason).toBe("issued in error");
    const ledger = await account.ledger();
    expect(rows(ledger)).toEqual([
      ["Grant", 20, 20],
      ["Grant", 5, 25],
      ["Usage", -20, 5],
      ["Usage", -5, 0],
      ["Reversal", 20, 20],
      ["Reversal", 5, 25],
    ]);
    expect(ledger.slice(4).map((entry) => [entry.grantId, entry.invoiceId])).toEqual([
      [a.id, invoice.id],
      [b.id, invoice.id],
    ]);
    const balance = (
      await server.rest("GET", `/credits/balance?customerId=${account.customerId}`, { token: account.token })
    ).body;
    expect(balance.grants.map((grant: any) => [grant.grantId, grant.remaining])).toEqual([
      [a.id, 20],
      [b.id, 5],
    ]);
    // Voiding again is 409 and gives nothing back twice.
    const again = await voidInvoice(account, invoice.id);
    expectError(again, 409, "CONFLICT");
    expect(again.body.message).toContain("VOIDED");
    expect(await account.ledger()).toHaveLength(6);
  });

  it("a grant that expired meanwhile gets its 10 back and expires again at once", async () => {
    const account = await billingAccount(server);
    const expiresAt = new Date(Date.now() + 3000).toISOString();
    const grant = (await account.grant(10, account.customerId, { expiresAt })).entry;
    const invoice = await januaryInvoice(account);
    expect(invoice.revenueBreakdown.creditsUsed).toBe(10);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiresAt) - Date.now()) + 20));

    expect((await voidInvoice(account, invoice.id)).status).toBe(200);
    const ledger = await account.ledger();
    expect(rows(ledger)).toEqual([
      ["Grant", 10, 10],
      ["Usage", -10, 0],
      ["Reversal", 10, 10],
      ["Expiration", -10, 0],
    ]);
    expect(ledger.slice(2).map((entry) => entry.grantId)).toEqual([grant.id, grant.id]);
  });

  it("illegal transitions are 409 naming the current and wanted status", async () => {
    const account = await billingAccount(server);
    const invoice = await januaryInvoice(account);
    await pay(account, invoice.id, { amount: 1 });
    const paidVoid = await voidInvoice(account, invoice.id);
    expectError(paidVoid, 409, "CONFLICT");
    expect(paidVoid.body.message).toMatch(/FINALIZED.*VOIDED/);

    const unpaid = await januaryInvoice(account, 4);
    expect((await voidInvoice(account, unpaid.id)).status).toBe(200);
    const payVoided = await pay(account, unpaid.id, { amount: 1 });
    expectError(payVoided, 409, "CONFLICT");
    expect(payVoided.body.message).toMatch(/VOIDED.*FINALIZED/);
    expect(await paymentsOf(account, unpaid.id)).toEqual([]);
  });

  it("pay racing void: exactly one wins, 10 rounds", async () => {
    const account = await billingAccount(server);
    for (let round = 1; round <= 10; round += 1) {
      const invoice = await januaryInvoice(account, round);
      const [paid, voided] = await Promise.all([
        pay(account, invoice.id, { amount: 3 }),
        voidInvoice(account, invoice.id),
      ]);
      expect([paid.status, voided.status].sort()).toEqual(paid.status === 201 ? [201, 409] : [200, 409]);
      const after = await invoiceOf(account, invoice.id);
      if (paid.status === 201) {
        expect(after).toMatchObject({ status: "FINALIZED", amountPaid: 3 });
      } else {
        expect(after).toMatchObject({ status: "VOIDED", amountPaid: 0 });
        expect(await paymentsOf(account, invoice.id)).toEqual([]);
      }
    }
  });
});

describe("another account's invoice", () => {
  it("is 404 to pay, list payments of and void, and stays untouched", async () => {
    const owner = await billingAccount(server);
    const invoice = await januaryInvoice(owner);
    const stranger = await billingAccount(server);
    expectError(await pay(stranger, invoice.id, { amount: 1 }), 404, "NOT_FOUND");
    expectError(await voidInvoice(stranger, invoice.id), 404, "NOT_FOUND");
    expectError(
      await server.rest("GET", `/invoices/${invoice.id}/payments`, { token: stranger.token }),
      404,
      "NOT_FOUND",
    );
    expect(await invoiceOf(owner, invoice.id)).toMatchObject({ status: "FINALIZED", amountPaid: 0 });
  });
});

describe("a void cut short after its change is logged", () => {
  const faults = testHooks();
  let faulty: TestServer;
  beforeAll(async () => {
    faulty = await startTestServer({ hooks: faults.hooks });
  });
  afterAll(() => faulty.close());

  it("is completed by the next read of the invoice; a void then answers 409 VOIDED; credits back once", async () => {
    const account = await billingAccount(faulty);
    await account.grant(8);
    const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(3, 10)] });
    await account.run("2024-02-01T00:00:00Z");
    const [invoice] = await account.invoices(contract.id);
    const voidOn = () => faulty.rest("POST", `/invoices/${invoice.id}/void`, { token: account.token, body: {} });
    // The database fails as the reversal is written: the VOID is logged, its credits not yet back.
    faults.fail("credits.append", account.customerId, 1);
    expect((await voidOn()).status).toBe(500);
    expect(rows(await account.ledger())).toEqual([
      ["Grant", 8, 8],
      ["Usage", -8, 0],
    ]);
    const read = await faulty.rest("GET", `/invoices/${invoice.id}`, { token: account.token });
    expect(read.body.invoice).toMatchObject({ status: "VOIDED", amountDue: 0 });
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      const again = await voidOn();
      expectError(again, 409, "CONFLICT");
      expect(again.body.message).toContain("VOIDED");
    }
    expect(rows(await account.ledger())).toEqual([
      ["Grant", 8, 8],
      ["Usage", -8, 0],
      ["Reversal", 8, 8],
    ]);
  });
});
