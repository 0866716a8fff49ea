import type { CommandStartedEvent } from "mongodb";
import { describe, expect, it } from "vitest";
import { billingAccount, committed } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { runOnOwnClient } from "./support/own-client-run.js";

/** Credits paying invoices (docs/decisions.md, "Billing engine" → Credits, Exactly once; "Credit ledger"). */
const server = useTestServer();

/** 10 × 99.99 = 999.90 per monthly cycle, from Jan 1, 2024. */
const seats = { startDate: "2024-01-01T00:00:00Z", products: [committed(10, 99.99)] };

const ledgerRows = (entries: any[]) => entries.map((entry) => [entry.type, entry.amount, entry.balanceAfterEntry]);

describe("credits paying invoices", () => {
  it("pays part of an invoice: balance 300 against 999.90", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(seats);
    await account.grant(300);
    await account.run("2024-02-01T00:00:00Z");

    const [invoice] = await account.invoices(contract.id);
    // 999.90 − 300 = 699.90 due
    expect(invoice.revenueBreakdown).toEqual({
      subtotal: 999.9,
      overage: 0,
      discount: 0,
      creditsUsed: 300,
      tax: 0,
      taxInclusive: 0,
      total: 699.9,
    });
    expect(invoice.amount).toBe(699.9);
    expect(invoice.lineItems[0].revenueBreakdown).toMatchObject({ creditsUsed: 300, total: 699.9 });

    const ledger = await account.ledger();
    expect(ledgerRows(ledger)).toEqual([
      ["Grant", 300, 300],
      ["Usage", -300, 0],
    ]);
    expect(ledger[1]).toMatchObject({ invoiceId: invoice.id, contractId: contract.id, customerId: account.customerId });
  });

  it("pays all of an invoice, the rest staying on the balance: balance 2000 against 999.90", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(seats);
    await account.grant(2000);
    await account.run("2024-02-01T00:00:00Z");

    const [invoice] = await account.invoices(contract.id);
    expect(invoice.revenueBreakdown).toMatchObject({ subtotal: 999.9, creditsUsed: 999.9, total: 0 });
    expect(invoice.amount).toBe(0);
    // 2000 − 999.90 = 1000.10
    expect(ledgerRows(await account.ledger())).toEqual([
      ["Grant", 2000, 2000],
      ["Usage", -999.9, 1000.1],
    ]);
  });

  it("allocates credits to lines in order", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      products: [committed(10, 10, 1, { displayName: "Setup", pricing: { type: "ONE_TIME", price: 250 } })],
    });
    await account.grant(300);
    await account.run("2024-02-01T00:00:00Z");
    const [invoice] = await account.invoices(contract.id);
    // Lines: one-time 250, commitment 10 × 10 = 100. Credits 300: 250 to the first line, the remaining 50 to the
    // second.
    expect(
      invoice.lineItems.map((line: any) => [line.kind, line.revenueBreakdown.creditsUsed, line.revenueBreakdown.total]),
    ).toEqual([
      ["ONE_TIME", 250, 0],
      ["COMMITMENT", 50, 50],
    ]);
    // 350 − 300 = 50
    expect(invoice.revenueBreakdown).toMatchObject({ subtotal: 350, creditsUsed: 300, total: 50 });
  });

  it("pays in whole cents only: a sub-cent balance pays nothing, and sub-cent remainders stay", async () => {
    const dust = await billingAccount(server);
    const dustContract = await dust.contract(seats);
    await dust.grant(0.005);
    await dust.run("2024-02-01T00:00:00Z");
    const [unpaid] = await dust.invoices(dustContract.id);
    expect(unpaid.revenueBreakdown).toMatchObject({ creditsUsed: 0, total: 999.9 });
    expect(ledgerRows(await dust.ledger())).toEqual([["Grant", 0.005, 0.005]]);

    const mixed = await billingAccount(server);
    const mixedContract = await mixed.contract(seats);
    await mixed.grant(300.009);
    await mixed.run("2024-02-01T00:00:00Z");
    const [paid] = await mixed.invoices(mixedContract.id);
    // Whole cents of 300.009 = 300.00; 0.009 stays.
    expect(paid.revenueBreakdown).toMatchObject({ creditsUsed: 300, total: 699.9 });
    expect(ledgerRows(await mixed.ledger())).toEqual([
      ["Grant", 300.009, 300.009],
      ["Usage", -300, 0.009],
    ]);
  });

  it("lets several invoices of one run draw on one balance, in cycle order", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(seats);
    await account.grant(1500);
    const run = await account.run("2024-04-01T00:00:00Z");
    const invoices = await account.invoices(contract.id);
    expect(run.invoiceIds).toEqual(invoices.map((invoice) => invoice.id));
    // Jan: 999.90 paid (1500 − 999.90 = 500.10 left); Feb: 500.10 paid, 999.90 − 500.10 = 499.80 due; Mar: nothing
    // left.
    expect(invoices.map((invoice) => [invoice.revenueBreakdown.creditsUsed, invoice.amount])).toEqual([
      [999.9, 0],
      [500.1, 499.8],
      [0, 999.9],
    ]);
    const ledger = await account.ledger();
    expect(ledgerRows(ledger)).toEqual([
      ["Grant", 1500, 1500],
      ["Usage", -999.9, 500.1],
      ["Usage", -500.1, 0],
    ]);
    expect(ledger.slice(1).map((entry) => entry.invoiceId)).toEqual([invoices[0].id, invoices[1].id]);
  });

  it("shares one balance between the customer's contracts; a later grant pays only later invoices", async () => {
    const account = await billingAccount(server);
    const first = await account.contract(seats);
    const second = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(1, 500)] });
    await account.grant(1200);
    await account.run("2024-02-01T00:00:00Z");
    // Contracts in creation order: first 999.90 paid (200.10 left), second 500: 200.10 paid, 299.90 due.
    expect((await account.invoices(first.id))[0].revenueBreakdown).toMatchObject({ creditsUsed: 999.9, total: 0 });
    expect((await account.invoices(second.id))[0].revenueBreakdown).toMatchObject({ creditsUsed: 200.1, total: 299.9 });

    await account.grant(100);
    await account.run("2024-03-01T00:00:00Z");
    // The January invoices are unchanged; February: the first contract takes the 100, the second none.
    expect((await account.invoices(second.id)).map((invoice) => invoice.revenueBreakdown.creditsUsed)).toEqual([
      200.1, 0,
    ]);
    expect((await account.invoices(first.id)).map((invoice) => invoice.amount)).toEqual([0, 899.9]); // 999.90 − 100
    expect(await account.balance()).toBe(0);
  });

  it("uses only the invoiced customer's credits, and debits nothing for an invoice of 0", async () => {
    const account = await billingAccount(server);
    const other = await account.newCustomer({ name: "Rich Co" });
    await account.grant(5000, other);
    const contract = await account.contract(seats);
    const free = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      customerId: other,
      products: [{ displayName: "Metered", catalogProductId: "m" }],
    });
    await account.run("2024-02-01T00:00:00Z");
    expect((await account.invoices(contract.id))[0].revenueBreakdown).toMatchObject({ creditsUsed: 0, total: 999.9 });
    expect((await account.invoices(free.id))[0].revenueBreakdown).toMatchObject({
      subtotal: 0,
      creditsUsed: 0,
      total: 0,
    });
    expect(ledgerRows(await account.ledger(other))).toEqual([["Grant", 5000, 5000]]);
    expect(await account.ledger()).toEqual([]);
  });
});

/** The reads of the credit ledger among a run's commands. */
const ledgerFinds = (commands: CommandStartedEvent[]) =>
  commands.filter(({ commandName, command }) => commandName === "find" && command.find === "credit_entries");

describe("reads of the credit ledger", () => {
  it("a run reads the ledger twice for an invoice that one grant pays", async () => {
    const account = await billingAccount(server);
    await account.contract(seats);
    await account.grant(2000);
    // The billing engine on a client of its own whose commands are counted: the service's, on the same database.
    const { run, commands } = await runOnOwnClient(server, account.accountId, "2024-02-01T00:00:00Z");
    const ledgerReads = ledgerFinds(commands).map(({ command }) => command.filter);
    expect(run.invoicesCreated).toBe(1);
    // Whether the batch's customers have a ledger at all (their first entries, one read for the batch), then what
    // credits may pay (the last entry: the payment's first guess of the ledger's position, which its unique insert
    // checks). No look for an earlier payment of the invoice: the batch opened its pending payment itself, so no
    // earlier try paid it, and the payment's first entry takes the invoice's id, which the ledger holds once. The
    // payment's one entry is its last: no read after it.
    expect(ledgerReads).toHaveLength(2);
    expect(ledgerReads[0]).toMatchObject({ seq: 1 });
    expect(ledgerRows(await account.ledger())).toEqual([
      ["Grant", 2000, 2000],
      ["Usage", -999.9, 1000.1],
    ]);
  });

  it("a month-end reads its customers' ledgers in one read once read, and none an invoice once spent", async () => {
    const account = await billingAccount(server);
    // Four customers, one 10.00 monthly contract each from Jan 1, and 25.00 of credit each.
    const customers = [account.customerId];
    for (const name of ["B", "C", "D"]) customers.push(await account.newCustomer({ name }));
    for (const customerId of customers) {
      await account.contract({ customerId, startDate: "2024-01-01T00:00:00Z", products: [committed(1, 10)] });
      await account.grant(25, customerId);
    }
    const ledgerReads = async (at: string) => {
      const { run, commands } = await runOnOwnClient(server, account.accountId, at);
      expect(run).toMatchObject({ invoicesCreated: 4, hasMore: false });
      return ledgerFinds(commands);
    };
    // January: which customers have a ledger (one read), then their entries from the first on (one read: no run read
    // them before).
    const january = await ledgerReads("2024-02-01T00:00:00Z");
    expect(january).toHaveLength(2);
    const fromFirst = customers.map((customerId) => ({ customerId, seq: { $gte: 1 } }));
    expect(january[1]?.command.filter.$or).toEqual(expect.arrayContaining(fromFirst));
    expect(january[1]?.command.filter.$or).toHaveLength(4);
    // A grant to the first customer after that run: 25 − 10 + 3 = 18.00.
    await account.grant(3, account.customerId);
    // February: which have a ledger, and every one's entries from where the last run read it (one read).
    const february = await ledgerReads("2024-03-01T00:00:00Z");
    expect(february).toHaveLength(2);
    expect(february[1]?.command.filter.$or).toHaveLength(4);
    // March the same, but the first customer's 8.00 comes from two grants (5.00 left of the first, then the 3.00): its
    // payment's second entry is written by settling the ledger after the first, which reads its last entry twice.
    const march = await ledgerReads("2024-04-01T00:00:00Z");
    expect(march.map(({ command }) => Object.keys(command.filter))).toEqual([
      ["accountId", "customerId", "seq"],
      ["accountId", "$or"],
      ["accountId", "customerId"],
      ["accountId", "customerId"],
    ]);
    // April: every balance spent (18 − 10 − 8 = 0; 25 − 10 − 10 − 5 = 0), credits pay nothing. No look an invoice for
    // an earlier payment of it: the batch opened their pending payments in one insert, so no earlier try paid them.
    const april = await ledgerReads("2024-05-01T00:00:00Z");
    expect(april.map(({ command }) => Object.keys(command.filter))).toEqual([
      ["accountId", "customerId", "seq"],
      ["accountId", "$or"],
    ]);
    // Credits paid by hand: the first customer 10.00, 10.00, then the 8.00 left (18 − 10), then none; the others 10,
    // 10, 5, then none.
    const creditsUsed = async (customerId: string) =>
      (await account.allInvoices())
        .filter((invoice) => invoice.customerId === customerId)
        .sort((a, b) => a.billingCycle.startTime.localeCompare(b.billingCycle.startTime))
        .map((invoice) => invoice.revenueBreakdown.creditsUsed);
    expect(await creditsUsed(account.customerId)).toEqual([10, 10, 8, 0]);
    for (const customerId of customers.slice(1)) expect(await creditsUsed(customerId)).toEqual([10, 10, 5, 0]);
  });
});
