import { describe, expect, it, vi } from "vitest";
import { billingAccount, committed, cyclesOf, day, runToEnd, sumMicros } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/**
 * Bounded runs (docs/decisions.md, "Billing engine" → Bounded runs): a backlog past one call's 100 invoices, billed
 * by one caller and by two at once, calling again while `hasMore`.
 * Slow: about 60 s alone: two backlogs of 102 invoices billed whole through the API, and an invoice costs some 40
 * database commands (issue 47 makes it fewer); each is just past one call's limit, the least that needs a second call.
 */
const server = useTestServer();
// Backlogs billed whole through the API take minutes on a loaded two-core machine: correctness, not speed, is tested.
vi.setConfig({ testTimeout: 300_000 });

describe("bounded runs", () => {
  it("bills a backlog of 102 cycles over several calls of at most 100 each, with hasMore until done", async () => {
    const account = await billingAccount(server);
    // Just past one call's 100 (two calls at least, as 192 cycles needed), at about half the invoices.
    const contract = await account.contract({ startDate: "2017-07-01T00:00:00Z", products: [committed(1, 10)] });
    const calls = await runToEnd(account, "2026-01-01T00:00:00Z");
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls[0].hasMore).toBe(true);
    for (const call of calls) expect(call.invoicesCreated).toBeLessThanOrEqual(100);
    // Jul 2017 .. Dec 2025: 6 + 8 × 12 = 102 cycles of 1 × 10 = 1,020.00.
    const invoices = await account.invoices(contract.id);
    expect(calls.reduce((total, call) => total + call.invoicesCreated, 0)).toBe(102);
    expect(invoices).toHaveLength(102);
    expect(sumMicros(invoices.map((invoice) => invoice.amount))).toBe(1_020_000_000);
    expect(cyclesOf(invoices).at(-1)).toEqual([day("2025-12-01"), day("2026-01-01")]);
  }, 300_000);

  it("concurrent callers calling again until done make each invoice once", async () => {
    const account = await billingAccount(server);
    for (let i = 0; i < 2; i += 1)
      await account.contract({ startDate: "2020-10-01T00:00:00Z", products: [committed(1, 10)] });
    await account.grant(100);
    const loops = await Promise.all([
      runToEnd(account, "2025-01-01T00:00:00Z"),
      runToEnd(account, "2025-01-01T00:00:00Z"),
    ]);
    // 2 contracts × 51 cycles (Oct 2020 .. Dec 2024) = 102 invoices, more than one call's 100, each reported by one
    // call.
    const created = loops.flat().flatMap((call) => call.invoiceIds);
    expect(created).toHaveLength(102);
    expect(new Set(created).size).toBe(102);
    expect(await account.allInvoices()).toHaveLength(102);
    // The 100.00 of credits paid 10 invoices of 10.00, one debit each, and nothing twice.
    const debits = (await account.ledger()).filter((entry) => entry.type === "Usage");
    expect(debits).toHaveLength(10);
    expect(new Set(debits.map((entry) => entry.invoiceId)).size).toBe(10);
    expect(await account.balance()).toBe(0);
  }, 300_000);
});
