import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { type BillingAccount, billingAccount, committed } from "./support/billing.js";
import { testHooks } from "./support/hooks.js";
import { startTestServer, type TestServer } from "./support/server.js";

/** Credit notes (docs/decisions.md, "Invoice life: payments, voids, credit notes"). */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const credit = (account: BillingAccount, body: Record<string, unknown>) =>
  server.rest("POST", "/credit-notes", { token: account.token, body });
const pay = (account: BillingAccount, invoiceId: string, amount: number) =>
  server.rest("POST", `/invoices/${invoiceId}/payments`, { token: account.token, body: { amount } });
const invoiceOf = async (account: BillingAccount, invoiceId: string) =>
  (await server.rest("GET", `/invoices/${invoiceId}`, { token: account.token })).body.invoice;

/** January 2024 of a contract billing 3 seats at `price`: one FINALIZED invoice of 3 × price (less credits). */
async function januaryInvoice(account: BillingAccount, price = 10) {
  const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(3, price)] });
  await account.run("2024-02-01T00:00:00Z");
  const [invoice] = await account.invoices(contract.id);
  return invoice;
}

describe("OFFSET", () => {
  it("lowers amountDue: 30 − 7.25 = 22.75; paying 22.75 makes it Paid; numbered CN-000001", async () => {
    const account = await billingAccount(server);
    const invoice = await januaryInvoice(account);
    const created = await credit(account, {
      invoiceId: invoice.id,
      amount: 7.25,
      reason: "ORDER_CHANGE",
      refund: "OFFSET",
    });
    expect(created.status).toBe(201);
    expect(created.body.creditNote).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      number: "CN-000001",
      invoiceId: invoice.id,
      customerId: account.customerId,
      amount: 7.25,
      currency: "USD",
      reason: "ORDER_CHANGE",
      refund: "OFFSET",
      createdAt: expect.any(String),
    });
    expect(await invoiceOf(account, invoice.id)).toMatchObject({
      amountCredited: 7.25,
      amountDue: 22.75,
      billingStatus: "None",
    });
    const over = await pay(account, invoice.id, 22.76);
    expectError(over, 409, "CONFLICT");
    expect((await pay(account, invoice.id, 22.75)).body.invoice).toMatchObject({ billingStatus: "Paid", amountDue: 0 });
    // Nothing is due any more: a further OFFSET is refused, naming the limit.
    const nothingDue = await credit(account, {
      invoiceId: invoice.id,
      amount: 0.01,
      reason: "OTHER",
      refund: "OFFSET",
    });
    expectError(nothingDue, 409, "CONFLICT");
    expect(nothingDue.body.message).toContain("the amount due, 0 USD");
  });
});

describe("CREDITS", () => {
  it("grants the amount, at most paid 10 + credits used 5 − earlier CREDITS notes", async () => {
    const account = await billingAccount(server);
    await account.grant(5);
    const invoice = await januaryInvoice(account);
    // 30, 5 of it paid by credits: 25 due; 10 paid.
    expect(invoice).toMatchObject({ revenueBreakdown: { creditsUsed: 5 }, amountDue: 25 });
    await pay(account, invoice.id, 10);

    expectError(
      await credit(account, { invoiceId: invoice.id, amount: 15.01, reason: "DUPLICATE", refund: "CREDITS" }),
      409,
      "CONFLICT",
    );
    const first = await credit(account, { invoiceId: invoice.id, amount: 12, reason: "DUPLICATE", refund: "CREDITS" });
    expect(first.status).toBe(201);
    expect(first.body.creditNote).toMatchObject({ number: "CN-000001", refund: "CREDITS", amount: 12 });
    const grant = (await account.ledger()).at(-1);
    expect(grant).toMatchObject({ type: "Grant", amount: 12, balanceAfterEntry: 12 });
    expect(grant.creditNoteId).toBe(first.body.creditNote.id);
    // 15 − 12 = 3 left to give back as credits (a credit note moves whole cents: 3.000001 would be a 400).
    const over = await credit(account, { invoiceId: invoice.id, amount: 3.01, reason: "OTHER", refund: "CREDITS" });
    expectError(over, 409, "CONFLICT");
    expect(over.body.issues).toEqual([{ path: "amount", message: "at most 3 for refund CREDITS" }]);
    const last = await credit(account, { invoiceId: invoice.id, amount: 3, reason: "OTHER", refund: "CREDITS" });
    expect(last.body.creditNote.number).toBe("CN-000002");
    expect(await account.balance()).toBe(15);
    // A CREDITS note leaves what is owed alone.
    expect(await invoiceOf(account, invoice.id)).toMatchObject({ amountCredited: 0, amountDue: 15 });
  });
});

describe("CREDITS beyond what the ledger takes", () => {
  it("is 409 before anything is logged: once it fits, the note is CN-000001", async () => {
    const account = await billingAccount(server);
    await account.grant(1_000_000_000);
    const invoice = await januaryInvoice(account);
    // Credits paid all 30 of it; granting 30 more brings the balance back to its ceiling, 1e9.
    expect(invoice.revenueBreakdown.creditsUsed).toBe(30);
    const topUp = (await account.grant(30)).entry;
    const body = { invoiceId: invoice.id, amount: 30, reason: "OTHER", refund: "CREDITS" };
    const refused = await credit(account, body);
    expectError(refused, 409, "CONFLICT");
    expect(refused.body.issues).toEqual([{ path: "amount", message: "would take the balance above 1000000000 USD" }]);
    await server.rest("POST", `/credits/${topUp.id}/void`, { token: account.token });
    const created = await credit(account, body);
    expect(created.status).toBe(201);
    expect(created.body.creditNote.number).toBe("CN-000001");
    expect((await account.ledger()).map((entry) => [entry.type, entry.amount])).toEqual([
      ["Grant", 1_000_000_000],
      ["Usage", -30],
      ["Grant", 30],
      ["Void", -30],
      ["Grant", 30],
    ]);
  });
});

describe("rules and reads", () => {
  it("only a FINALIZED invoice takes one: 409 naming VOIDED", async () => {
    const account = await billingAccount(server);
    const invoice = await januaryInvoice(account);
    await server.rest("POST", `/invoices/${invoice.id}/void`, { token: account.token, body: {} });
    const refused = await credit(account, { invoiceId: invoice.id, amount: 1, reason: "OTHER", refund: "OFFSET" });
    expectError(refused, 409, "CONFLICT");
    expect(refused.body.message).toContain("VOIDED");
  });

  it.each([
    ["amount 0", { amount: 0 }, "amount"],
    ["an unknown reason", { reason: "BORED" }, "reason"],
    ["an unknown refund", { refund: "CASH" }, "refund"],
  ])("%s is 400 naming the field", async (_, fields, path) => {
    const account = await billingAccount(server);
    const invoice = await januaryInvoice(account);
    const body = { invoiceId: invoice.id, amount: 1, reason: "OTHER", refund: "OFFSET", ...fields };
    const refused = await credit(account, body);
    expectError(refused, 400, "BAD_REQUEST");
    expect(refused.body.issues.map((issue: any) => issue.path)).toEqual([path]);
  });

  it("lists by invoice and by customer, gets by id; another account's are 404 or absent", async () => {
    const account = await billingAccount(server);
    const invoice = await januaryInvoice(account);
    const other = await januaryInvoice(account, 7);
    const note = (await credit(account, { invoiceId: invoice.id, amount: 1, reason: "OTHER", refund: "OFFSET" })).body
      .creditNote;
    const otherNote = (await credit(account, { invoiceId: other.id, amount: 2, reason: "OTHER", refund: "OFFSET" }))
      .body.creditNote;
    const list = async (query: string, token = account.token) =>
      (await server.rest("GET", `/credit-notes${query}`, { token })).body;
    expect((await list("")).creditNotes).toEqual([note, otherNote]);
    expect((await list(`?invoiceId=${other.id}`)).creditNotes).toEqual([otherNote]);
    expect((await list(`?customerId=${account.customerId}`)).creditNotes).toEqual([note, otherNote]);
    expect((await list(`?customerId=${account.customerId}&invoiceId=${invoice.id}`)).creditNotes).toEqual([note]);
    const page = await list("?limit=1");
    expect(page).toMatchObject({ creditNotes: [note], total: 2, hasMore: true });
    expect((await list(`?limit=1&cursor=${page.nextCursor}`)).creditNotes).toEqual([otherNote]);
    expect((await server.rest("GET", `/credit-notes/${note.id}`, { token: account.token })).body.creditNote).toEqual(
      note,
    );

    const stranger = await billingAccount(server);
    expectError(await server.rest("GET", `/credit-notes/${note.id}`, { token: stranger.token }), 404, "NOT_FOUND");
    expect((await list(`?invoiceId=${invoice.id}`, stranger.token)).creditNotes).toEqual([]);
    expectError(
      await credit(stranger, { invoiceId: invoice.id, amount: 1, reason: "OTHER", refund: "OFFSET" }),
      404,
      "NOT_FOUND",
    );
    expect(await invoiceOf(account, invoice.id)).toMatchObject({ amountCredited: 1, amountDue: 29 });
  });
});

describe("a CREDITS note cut short after its change is logged", () => {
  const faults = testHooks();
  let faulty: TestServer;
  beforeAll(async () => {
    faulty = await startTestServer({ hooks: faults.hooks });
  });
  afterAll(() => faulty.close());

  it("is completed by the invoice's next credit note: its number, document and grant, each once", async () => {
    const account = await billingAccount(faulty);
    await account.grant(6);
    const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(3, 10)] });
    await account.run("2024-02-01T00:00:00Z");
    const [invoice] = await account.invoices(contract.id);
    const creditOn = (body: Record<string, unknown>) =>
      faulty.rest("POST", "/credit-notes", { token: account.token, body: { invoiceId: invoice.id, ...body } });
    // The database fails as the note's grant is written: the change is logged, nothing else yet.
    faults.fail("credits.append", account.customerId, 1);
    expect((await creditOn({ amount: 4, reason: "OTHER", refund: "CREDITS" })).status).toBe(500);
    const notes = async () =>
      (await faulty.rest("GET", `/credit-notes?invoiceId=${invoice.id}`, { token: account.token })).body.creditNotes;
    const ofCustomer = `/credit-notes?customerId=${account.customerId}`;
    expect((await faulty.rest("GET", ofCustomer, { token: account.token })).body.creditNotes).toEqual([]);

    const next = await creditOn({ amount: 1, reason: "OTHER", refund: "OFFSET" });
    expect(next.status).toBe(201);
    expect(next.body.creditNote.number).toBe("CN-000002");
    const [first] = await notes();
    expect(first).toMatchObject({ number: "CN-000001", amount: 4, refund: "CREDITS" });
    // Grant 6, used 6 by the invoice (30 − 6 = 24 due), then the note's grant of 4, once.
    const ledger = await account.ledger();
    expect(ledger.map((entry) => [entry.type, entry.amount, entry.balanceAfterEntry])).toEqual([
      ["Grant", 6, 6],
      ["Usage", -6, 0],
      ["Grant", 4, 4],
    ]);
    expect(ledger[2].creditNoteId).toBe(first.id);
    // Only the OFFSET note lowered what is owed: 24 − 1 = 23.
    const owed = (await faulty.rest("GET", `/invoices/${invoice.id}`, { token: account.token })).body.invoice;
    expect(owed).toMatchObject({ amountCredited: 1, amountDue: 23 });
  });
});
