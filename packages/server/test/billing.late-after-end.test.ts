import { describe, expect, it } from "vitest";
import { type BillingAccount, billingAccount } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { setLateUsage, TOKENS, tokens } from "./support/late-usage.js";
import { runOnOwnClient } from "./support/own-client-run.js";

const server = useTestServer();

/** A customer (alias `acme`) whose TOKENS contract covers March 2025 only: March's invoice is its last. */
async function marchOnly() {
  const account = await billingAccount(server, { name: "Acme", aliases: ["acme"] });
  await account.post("/meters", { key: "tokens", eventName: "llm", aggregation: "SUM", valueProperty: "n" }, 201);
  const contract = await account.contract({
    startDate: "2025-03-01T00:00:00Z",
    endDate: "2025-04-01T00:00:00Z",
    products: [TOKENS],
  });
  return { account, contract };
}

const lateLines = (invoice: { lineItems: { kind: string }[] }) =>
  invoice.lineItems.filter((line) => line.kind === "LATE_USAGE");
const creditNotesOf = async (account: BillingAccount, invoiceId: string) =>
  (await server.rest("GET", `/credit-notes?invoiceId=${invoiceId}&limit=100`, { token: account.token })).body
    .creditNotes as { amount: number; reason: string; refund: string }[];

describe("late usage after a contract's last invoice (issue 45)", () => {
  it("NEXT_INVOICE has no next invoice: a look a month after its last cycle: an ADJUSTMENT invoice", async () => {
    const { account, contract } = await marchOnly();
    await account.post("/events", { events: [tokens("m1", "2025-03-10T12:00:00Z", 800)] });
    await account.run("2025-04-01T00:00:00Z");
    const [march] = await account.invoices(contract.id);
    expect(march.amount).toBe(8); // 800 × 0.01

    // 500 late tokens of March 20. Apr 15: before the look (May 1, a month after March's cycle was ready).
    await account.post("/events", { events: [tokens("late-1", "2025-03-20T12:00:00Z", 500)] });
    await account.run("2025-04-15T00:00:00Z");
    expect(await account.invoices(contract.id)).toHaveLength(1);
    // May 1 (within the 35 days after Apr 1), on two instances at once and once more: one ADJUSTMENT invoice.
    await Promise.all([
      account.run("2025-05-01T00:00:00Z"),
      runOnOwnClient(server, account.accountId, "2025-05-01T00:00:00Z"),
    ]);
    await account.run("2025-05-02T00:00:00Z");
    const [marchAgain, adjustment, ...more] = await account.invoices(contract.id);
    expect(more).toEqual([]);
    expect(marchAgain.amount).toBe(8);
    // March priced again: 1,300 = 10.00 + 300 × 0.005 = 11.50; it charged 8.00 → +3.50 for +500 tokens.
    expect(adjustment).toMatchObject({
      kind: "ADJUSTMENT",
      adjusts: march.id,
      status: "FINALIZED",
      amount: 3.5,
      billingCycle: march.billingCycle,
    });
    expect(lateLines(adjustment)).toEqual([
      expect.objectContaining({ name: `Late usage, ${march.number} (Mar 2025): +500 tokens` }),
    ]);

    // Past the window (May 6): no look any more; late usage then is billed nowhere.
    await account.post("/events", { events: [tokens("late-2", "2025-03-25T12:00:00Z", 100)] });
    await account.run("2025-06-01T00:00:00Z");
    expect(await account.invoices(contract.id)).toHaveLength(2);
  }, 60_000);

  it("a lowered day after the end: a USAGE_CORRECTION note on the last invoice; IGNORE: no look", async () => {
    const { account, contract } = await marchOnly();
    await account.post("/events", {
      events: [tokens("m1", "2025-03-10T12:00:00Z", 800), tokens("m2", "2025-03-12T12:00:00Z", 400)],
    });
    await account.run("2025-04-01T00:00:00Z");
    const [march] = await account.invoices(contract.id);
    expect(march.amount).toBe(11); // 1,200: 10.00 + 200 × 0.005
    // Mar 12 measured at 100 instead: 900 tokens = 9.00 → 2.00 back on March, OFFSET.
    await account.measure("tokens", "2025-03-12", 100);
    await account.run("2025-05-01T00:00:00Z");
    expect(await creditNotesOf(account, march.id)).toEqual([
      expect.objectContaining({ amount: 2, reason: "USAGE_CORRECTION", refund: "OFFSET" }),
    ]);
    expect(await account.invoices(contract.id)).toHaveLength(1);

    const ignored = await marchOnly();
    expect((await setLateUsage(server, ignored.account, { policy: "IGNORE", windowDays: 35 })).status).toBe(200);
    await ignored.account.post("/events", { events: [tokens("m1", "2025-03-10T12:00:00Z", 800)] });
    await ignored.account.run("2025-04-01T00:00:00Z");
    await ignored.account.post("/events", { events: [tokens("late-1", "2025-03-20T12:00:00Z", 500)] });
    await ignored.account.run("2025-05-01T00:00:00Z");
    expect(await ignored.account.invoices(ignored.contract.id)).toHaveLength(1);
  }, 60_000);
});
