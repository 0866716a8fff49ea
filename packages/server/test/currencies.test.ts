import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { billingAccount, monthly } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { testHooks } from "./support/hooks.js";
import { ADMIN_TOKEN } from "./support/server.js";

const control = testHooks();
const server = useTestServer({ hooks: control.hooks });

// Contracts, invoices and credits in other currencies than USD (docs/decisions.md, "Currencies"): amounts by hand.
const JANUARY = { startDate: "2024-01-01T00:00:00Z", endDate: "2024-02-01T00:00:00Z" };
const perUnit = (price: number) => ({
  displayName: "API",
  catalogProductId: "calls",
  scheduling: monthly(1),
  pricing: { type: "PER_UNIT", price },
});

describe("contract currencies", () => {
  it("JPY has no minor unit: 3 units × 0.5 JPY = 1.5 JPY → 2 JPY (half up), and the invoice says JPY", async () => {
    const account = await billingAccount(server);
    await account.measure("calls", "2024-01-10", 3);
    const contract = await account.contract({ ...JANUARY, currency: "JPY", products: [perUnit(0.5)] });
    expect(contract.currency).toBe("JPY");
    await account.run("2024-02-01T00:00:00Z");
    const [invoice] = await account.invoices(contract.id);
    expect(invoice.currency).toBe("JPY");
    expect(invoice.lineItems[0]).toMatchObject({ quantity: 3, unitPrice: 0.5 });
    expect(invoice.lineItems[0].revenueBreakdown.subtotal).toBe(2);
    expect(invoice.amount).toBe(2);
  });

  it("KWD has 3 decimals: 1234.5 units × 0.001 KWD = 1.2345 → 1.235 KWD; in USD the same is 1.23", async () => {
    const account = await billingAccount(server);
    // Usage is priced once per customer: the USD contract is another customer's, with the same usage.
    const other = await account.newCustomer({ name: "Other Co" });
    await account.measure("calls", "2024-01-10", 1234.5);
    await account.measure("calls", "2024-01-10", 1234.5, other);
    const kwd = await account.contract({ ...JANUARY, currency: "KWD", products: [perUnit(0.001)] });
    const usd = await account.contract({ ...JANUARY, customerId: other, currency: "USD", products: [perUnit(0.001)] });
    await account.run("2024-02-01T00:00:00Z");
    const [kwdInvoice] = await account.invoices(kwd.id);
    const [usdInvoice] = await account.invoices(usd.id);
    expect([kwdInvoice.currency, kwdInvoice.amount]).toEqual(["KWD", 1.235]);
    expect([usdInvoice.currency, usdInvoice.amount]).toEqual(["USD", 1.23]);
  });

  it("takes the account's defaultCurrency when the contract names none (itself USD by default)", async () => {
    const account = await billingAccount(server);
    expect((await account.contract({ ...JANUARY })).currency).toBe("USD");
    const patched = await server.rest("PATCH", `/admin/accounts/${account.accountId}`, {
      token: ADMIN_TOKEN,
      body: { defaultCurrency: "EUR" },
    });
    expect(patched.body.account.defaultCurrency).toBe("EUR");
    expect((await account.contract({ ...JANUARY })).currency).toBe("EUR");
    expect((await account.contract({ ...JANUARY, currency: "GBP" })).currency).toBe("GBP");
  });

  it("refuses an unknown or malformed currency with a 400 naming the field", async () => {
    const account = await billingAccount(server);
    for (const currency of ["ABC", "usd", "XTS", 840]) {
      const response = await server.rest("POST", "/contracts", {
        token: account.token,
        body: { customerId: account.customerId, name: "Plan", ...JANUARY, currency },
      });
      expectError(response, 400, "BAD_REQUEST");
      expect(response.body.issues).toEqual([expect.objectContaining({ path: "currency" })]);
    }
  });

  it("changes a contract's currency until its first invoice, then answers 409", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({ ...JANUARY, products: [perUnit(1)] });
    const change = (currency: string) =>
      server.rest("PATCH", `/contracts/${contract.id}`, { token: account.token, body: { currency } });
    const changed = await change("EUR");
    expect(changed.status).toBe(200);
    expect(changed.body.contract.currency).toBe("EUR");
    expectError(await change("NOPE"), 400, "BAD_REQUEST");
    await account.run("2024-02-01T00:00:00Z");
    const refused = await change("USD");
    expectError(refused, 409, "CONFLICT");
    expect(refused.body.issues).toEqual([expect.objectContaining({ path: "currency" })]);
    // The same currency again changes nothing, so it is no conflict.
    expect((await change("EUR")).status).toBe(200);
    const [invoice] = await account.invoices(contract.id);
    expect(invoice.currency).toBe("EUR");
  });

  it("a run racing a currency change bills in the currency in force at finalization", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({ ...JANUARY, products: [perUnit(0.5)] });
    await account.measure("calls", "2024-01-10", 3);
    const change = (currency: string) =>
      server.rest("PATCH", `/contracts/${contract.id}`, { token: account.token, body: { currency } });
    // The run has priced January in USD and waits before storing it; the change finds nothing invoiced.
    const paused = control.pauseOnce("invoices.insert", contract.id);
    const run = account.run("2024-02-01T00:00:00Z");
    await paused.reached;
    expect((await change("JPY")).status).toBe(200);
    paused.release();
    await run;
    // Stored as priced, in USD (3 × 0.50 = 1.50), but left a draft: the contract changed since the run read it.
    expect(await account.invoices(contract.id)).toEqual([
      expect.objectContaining({ status: "DRAFT", currency: "USD", amount: 1.5 }),
    ]);
    // The draft is an invoice of the contract: its currency no longer changes.
    expectError(await change("EUR"), 409, "CONFLICT");
    await account.run("2024-02-01T00:00:00Z");
    // Finalized in JPY, priced again: 3 × 0.5 JPY = 1.5 → 2 JPY (half up to the yen).
    expect(await account.invoices(contract.id)).toEqual([
      expect.objectContaining({ status: "FINALIZED", currency: "JPY", amount: 2 }),
    ]);
  });
});

describe("credits per currency", () => {
  it("a USD grant does not pay a EUR invoice; a EUR grant does; the balance is per currency", async () => {
    const account = await billingAccount(server);
    // Flat 30 EUR and flat 20 USD, January. Grants: 100 USD, then 25 EUR.
    const flat = (price: number) => ({ displayName: "Plan", scheduling: monthly(1), pricing: { type: "FLAT", price } });
    const eur = await account.contract({ ...JANUARY, currency: "EUR", products: [flat(30)] });
    const usd = await account.contract({ ...JANUARY, currency: "USD", products: [flat(20)] });
    const usdGrant = await account.grant(100);
    expect(usdGrant.entry).toMatchObject({ currency: "USD", amount: 100, balanceAfterEntry: 100 });
    const eurGrant = await account.grant(25, account.customerId, { currency: "EUR" });
    // The balance after an entry is the balance in its currency: 25 EUR, not 125.
    expect(eurGrant.entry).toMatchObject({ currency: "EUR", amount: 25, balanceAfterEntry: 25 });
    await account.run("2024-02-01T00:00:00Z");
    const [eurInvoice] = await account.invoices(eur.id);
    const [usdInvoice] = await account.invoices(usd.id);
    // EUR: 30 − 25 of EUR credits = 5 due; the 100 USD do not pay it. USD: 20 − 20 = 0.
    expect(eurInvoice.revenueBreakdown).toMatchObject({ subtotal: 30, creditsUsed: 25, total: 5 });
    expect(usdInvoice.revenueBreakdown).toMatchObject({ subtotal: 20, creditsUsed: 20, total: 0 });
    const balance = await server.rest("GET", `/credits/balance?customerId=${account.customerId}`, {
      token: account.token,
    });
    // USD 100 − 20 = 80 left; EUR 25 − 25 = 0 (no grant with money left, so it is not listed).
    expect(balance.body).toMatchObject({ balance: 80, currency: "USD", balances: [{ currency: "USD", balance: 80 }] });
    expect(balance.body.grants).toEqual([expect.objectContaining({ currency: "USD", remaining: 80 })]);
  });

  it("reports the account's default currency first, then the others A to Z", async () => {
    const account = await billingAccount(server);
    await account.grant(5, account.customerId, { currency: "JPY" });
    await account.grant(7.5, account.customerId, { currency: "EUR" });
    const balance = await server.rest("GET", `/credits/balance?customerId=${account.customerId}`, {
      token: account.token,
    });
    expect(balance.body).toMatchObject({
      balance: 0,
      currency: "USD",
      balances: [
        { currency: "USD", balance: 0 },
        { currency: "EUR", balance: 7.5 },
        { currency: "JPY", balance: 5 },
      ],
    });
    const unknown = await server.rest("POST", "/credits", {
      token: account.token,
      body: { customerId: account.customerId, amount: 1, type: "Grant", currency: "ZZZ" },
    });
    expectError(unknown, 400, "BAD_REQUEST");
    expect(unknown.body.issues).toEqual([expect.objectContaining({ path: "currency" })]);
  });
});

describe("payments and credit notes in the invoice's currency", () => {
  it("refuses an amount finer than the minor unit (0.5 JPY) with a 400 naming it; whole yen are taken", async () => {
    const account = await billingAccount(server);
    const flat = { displayName: "Plan", scheduling: monthly(1), pricing: { type: "FLAT", price: 1000 } };
    const contract = await account.contract({ ...JANUARY, currency: "JPY", products: [flat] });
    await account.run("2024-02-01T00:00:00Z");
    const [invoice] = await account.invoices(contract.id);
    expect(invoice).toMatchObject({ currency: "JPY", amountDue: 1000 });
    const pay = (amount: number) =>
      server.rest("POST", `/invoices/${invoice.id}/payments`, { token: account.token, body: { amount } });
    const fine = await pay(0.5);
    expectError(fine, 400, "BAD_REQUEST");
    expect(fine.body.issues).toEqual([{ path: "amount", message: "at most 0 decimal places in JPY" }]);
    const paid = await pay(400);
    expect(paid.status).toBe(201);
    expect(paid.body.invoice).toMatchObject({ amountDue: 600, paymentInfo: { currency: "JPY", amount: 400 } });
    const note = (amount: number) =>
      server.rest("POST", "/credit-notes", {
        token: account.token,
        body: { invoiceId: invoice.id, amount, reason: "OTHER", refund: "OFFSET" },
      });
    expectError(await note(99.5), 400, "BAD_REQUEST");
    const credited = await note(100);
    expect(credited.status).toBe(201);
    // 1000 − 400 paid − 100 credited = 500 due.
    expect(credited.body.creditNote).toMatchObject({ currency: "JPY", amount: 100 });
    const [after] = await account.invoices(contract.id);
    expect(after.amountDue).toBe(500);
    // Refusals name amounts in the invoice's currency.
    const overpaid = await pay(501);
    expectError(overpaid, 409, "CONFLICT");
    expect(overpaid.body.message).toBe("amount 501 JPY is more than the amount due, 500 JPY");
  });
});
