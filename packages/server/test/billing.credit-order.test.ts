import { describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.js";
import { createRepositories } from "../src/repositories/index.js";
import { RUN_LIMITS, runBilling } from "../src/services/billing/run.js";
import { type BillingAccount, between, billingAccount, invoicesMadeBy, monthly, runToEnd } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/** Credits pay a customer's invoices in issue order across contracts (docs/decisions.md, "Billing engine"). */
const server = useTestServer();

const flat = (price: number, billingDay: number) => ({
  displayName: `Flat ${price}`,
  scheduling: monthly(billingDay),
  pricing: { type: "FLAT", price },
});

/**
 * A 100.00 grant; contract P, FLAT 30 monthly in arrears from Nov 1, 2023 to Apr 1, 2024 (issued Dec 1, Jan 1, Feb 1,
 * Mar 1, Apr 1); contract Q, FLAT 100 from Jan 15 to Feb 15 (issued Feb 15). P is the one runs look at first.
 */
async function twoContracts() {
  const account = await billingAccount(server);
  await account.grant(100);
  const p = await account.contract({ name: "P", ...between("2023-11-01", "2024-04-01"), products: [flat(30, 1)] });
  const q = await account.contract({ name: "Q", ...between("2024-01-15", "2024-02-15"), products: [flat(100, 15)] });
  return { account, p, q };
}

/** Each invoice's [credits used, amount owed], in billing-cycle order. */
const paid = async (account: BillingAccount, contractId: string) =>
  (await account.invoices(contractId)).map((invoice) => [invoice.revenueBreakdown.creditsUsed, invoice.amount]);

/**
 * By hand, in issue order: Dec 1 P 30 (70 left), Jan 1 P 30 (40), Feb 1 P 30 (10), Feb 15 Q 10 of 100 (0 left, owes
 * 90.00), then Mar 1 and Apr 1 P owe 30.00 each.
 */
const P_PAID = [
  [30, 0],
  [30, 0],
  [30, 0],
  [0, 30],
  [0, 30],
];
const Q_PAID = [[10, 90]];

describe("credits pay a customer's invoices in issue order, however often runs happen", () => {
  it("one run at May 1", async () => {
    const { account, p, q } = await twoContracts();
    expect(invoicesMadeBy(await runToEnd(account, "2024-05-01T00:00:00Z"))).toHaveLength(6);
    expect(await paid(account, p.id)).toEqual(P_PAID);
    expect(await paid(account, q.id)).toEqual(Q_PAID);
    expect(await account.balance()).toBe(0);
  });

  it("a run at every issue date", async () => {
    const { account, p, q } = await twoContracts();
    for (const at of ["2023-12-01", "2024-01-01", "2024-02-01", "2024-02-15", "2024-03-01", "2024-04-01"])
      expect(invoicesMadeBy(await runToEnd(account, `${at}T00:00:00Z`))).toHaveLength(1);
    expect(await paid(account, p.id)).toEqual(P_PAID);
    expect(await paid(account, q.id)).toEqual(Q_PAID);
  });

  it.each([1, 2])("one run at May 1 whose calls look at %i contract(s) and make as many invoices", async (limit) => {
    const { account, p, q } = await twoContracts();
    const repositories = createRepositories(server.service.db);
    const at = new Date("2024-05-01T00:00:00Z");
    let calls = 0;
    for (let hasMore = true; hasMore; calls += 1) {
      const run = await runBilling(repositories, account.accountId, at, createLogger("silent"), {
        graceMs: 0,
        draftMs: 0,
        limits: { ...RUN_LIMITS, invoicesPerCall: limit },
      });
      expect(run.invoicesCreated).toBeLessThanOrEqual(limit);
      hasMore = run.hasMore;
      if (calls > 20) throw new Error("the run never finished");
    }
    expect(await paid(account, p.id)).toEqual(P_PAID);
    expect(await paid(account, q.id)).toEqual(Q_PAID);
  });
});
