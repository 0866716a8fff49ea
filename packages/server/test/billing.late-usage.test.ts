import { describe, expect, it } from "vitest";
import { type BillingAccount, billingAccount, usageProduct } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { ADMIN_TOKEN } from "./support/server.js";

const server = useTestServer();

/** GRADUATED tokens: the first 1,000 at 0.01, then 0.005 (issue 45's figures). */
const TOKENS = usageProduct("Tokens", "tokens", {
  type: "GRADUATED",
  tiers: [
    { upTo: 1000, unitPrice: 0.01 },
    { upTo: null, unitPrice: 0.005 },
  ],
});

const tokens = (ref: string, timestamp: string, n: number) => ({
  ref,
  name: "llm",
  timestamp,
  customerAlias: "acme",
  data: { n: String(n) },
});

async function tokensAccount() {
  const account = await billingAccount(server, { name: "Acme", aliases: ["acme"] });
  await account.post("/meters", { key: "tokens", eventName: "llm", aggregation: "SUM", valueProperty: "n" }, 201);
  const contract = await account.contract({
    startDate: "2025-03-01T00:00:00Z",
    endDate: "2025-07-01T00:00:00Z",
    products: [TOKENS],
  });
  return { account, contract };
}

const setLateUsage = (account: BillingAccount, lateUsage: unknown) =>
  server.rest("PATCH", `/admin/accounts/${account.accountId}`, { token: ADMIN_TOKEN, body: { lateUsage } });

/** The meters' verdicts on the account's event `ref` (GET /events/{eventId}). */
async function explain(account: BillingAccount, ref: string) {
  const query = "startTime=2025-03-01T00:00:00Z&endTime=2025-07-01T00:00:00Z&limit=100";
  const { events } = (await server.rest("GET", `/events?${query}`, { token: account.token })).body;
  const id = events.find((event: { ref: string }) => event.ref === ref).id;
  return (await server.rest("GET", `/events/${id}`, { token: account.token })).body.attribution.meters;
}

const lateLines = (invoice: { lineItems: { kind: string }[] }) =>
  invoice.lineItems.filter((line) => line.kind === "LATE_USAGE");

describe("late usage (issue 45): NEXT_INVOICE", () => {
  it("the next invoice carries the whole March cycle priced again minus what March charged, once", async () => {
    const { account, contract } = await tokensAccount();
    const settings = await server.rest("GET", `/admin/accounts/${account.accountId}`, { token: ADMIN_TOKEN });
    expect(settings.body.account?.lateUsage ?? settings.body.lateUsage).toEqual({
      policy: "NEXT_INVOICE",
      windowDays: 35,
    });

    await account.post("/events", { events: [tokens("m1", "2025-03-10T12:00:00Z", 800)] });
    await account.run("2025-04-01T00:00:00Z");
    const [march] = await account.invoices(contract.id);
    expect(march.amount).toBe(8); // 800 × 0.01 = 8.00
    expect(march.status).toBe("FINALIZED");

    // 500 late tokens of March 20, stored after March's invoice; sent twice (same refs): stored once.
    const late = { events: [tokens("late-1", "2025-03-20T12:00:00Z", 500)] };
    await account.post("/events", late);
    await account.post("/events", late);
    await account.run("2025-05-01T00:00:00Z");
    await account.run("2025-05-01T00:00:00Z"); // a second run at the same moment adjusts nothing again
    const [marchAgain, april] = await account.invoices(contract.id);
    expect(marchAgain).toEqual(march); // an issued invoice never changes
    // March priced again at 1,300: 1,000 × 0.01 + 300 × 0.005 = 10.00 + 1.50 = 11.50; invoiced 8.00 → +3.50.
    expect(lateLines(april)).toEqual([
      expect.objectContaining({
        name: `Late usage, ${march.number} (Mar 2025): +500 tokens`,
        quantity: 500,
        adjusts: { invoiceId: march.id, number: march.number, product: "tokens", quantity: 500 },
        revenueBreakdown: expect.objectContaining({ subtotal: 3.5, total: 3.5 }),
      }),
    ]);
    expect(april.amount).toBe(3.5); // April's own usage: none
    expect(await explain(account, "late-1")).toEqual([
      { key: "tokens", counted: true, reason: "ADJUSTED", adjustedBy: april.id },
    ]);
    expect(await explain(account, "m1")).toEqual([{ key: "tokens", counted: true }]);
    // April's document shows the line with March's number, and what it is.
    const html: string = (await server.rest("GET", `/invoices/${april.id}/html`, { token: account.token })).body;
    expect(html).toContain(`Late usage, ${march.number} (Mar 2025): +500 tokens`);
    expect(html).toContain("its whole cycle priced again");

    // A second late batch makes a second, incremental line (the window widened so March is still in it in June).
    expect((await setLateUsage(account, { policy: "NEXT_INVOICE", windowDays: 90 })).status).toBe(200);
    await account.post("/events", { events: [tokens("late-2", "2025-03-25T12:00:00Z", 100)] });
    await account.run("2025-06-01T00:00:00Z");
    const [, aprilAgain, may] = await account.invoices(contract.id);
    expect(aprilAgain).toEqual(april);
    // 1,400: 10.00 + 400 × 0.005 = 12.00; charged 8.00 + 3.50 = 11.50 → +0.50 for +100.
    expect(lateLines(may)).toEqual([
      expect.objectContaining({
        name: `Late usage, ${march.number} (Mar 2025): +100 tokens`,
        revenueBreakdown: expect.objectContaining({ total: 0.5 }),
      }),
    ]);
  });

  it("IGNORE bills late usage nowhere; a window passed adjusts nothing", async () => {
    const { account, contract } = await tokensAccount();
    await account.post("/events", { events: [tokens("m1", "2025-03-10T12:00:00Z", 800)] });
    await account.run("2025-04-01T00:00:00Z");
    expect((await setLateUsage(account, { policy: "IGNORE", windowDays: 35 })).status).toBe(200);
    await account.post("/events", { events: [tokens("late-1", "2025-03-20T12:00:00Z", 500)] });
    await account.run("2025-05-01T00:00:00Z");
    const [, april] = await account.invoices(contract.id);
    expect(lateLines(april)).toEqual([]);
    expect(await explain(account, "late-1")).toEqual([{ key: "tokens", counted: false, reason: "AFTER_INVOICE" }]);

    // NEXT_INVOICE again, but March (finalized Apr 1) is 61 days before June 1's run: out of a 35-day window.
    expect((await setLateUsage(account, null)).status).toBe(200);
    await account.run("2025-06-01T00:00:00Z");
    const [, , may] = await account.invoices(contract.id);
    expect(lateLines(may)).toEqual([]);
    // ADJUSTMENT_INVOICE is not built yet: refused, naming the field, rather than taken and ignored.
    const refused = await setLateUsage(account, { policy: "ADJUSTMENT_INVOICE", windowDays: 35 });
    expect(refused.status).toBe(400);
    expect(refused.body.issues?.[0]?.path).toContain("lateUsage");
  });
});
