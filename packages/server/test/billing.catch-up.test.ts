import { ObjectId } from "mongodb";
import { describe, expect, it, vi } from "vitest";
import { createLogger } from "../src/logger.js";
import { createRepositories } from "../src/repositories/index.js";
import { RUN_LIMITS, runBilling } from "../src/services/billing/run.js";
import { type BillingAccount, billingAccount, day, invoicesMadeBy, monthly, runToEnd } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/**
 * Catch-up runs split over several calls (docs/decisions.md, "Billing engine" → Bounded runs, Ready order): with a
 * grace period, a prepaid invoice due at the instant an arrears one is due is ready an hour before it.
 * Slow: about 60 s alone, 125 s beside another file: every stop position of two years of invoices is billed, one call
 * per stop, and an invoice costs some 40 database commands (issue 47 makes it fewer).
 */
const GRACE_MS = 60 * 60_000;
const server = useTestServer({ billingGraceMs: GRACE_MS });
// Backlogs billed whole through the API take minutes on a loaded two-core machine: correctness, not speed, is tested.
vi.setConfig({ testTimeout: 300_000 });

/** Prepaid FLAT 10 and arrears FLAT 20, monthly on the 1st: each month 10 due at its start, 20 due at its end. */
const prepaidBesideArrears = (startDate: string, endDate?: string) => ({
  startDate,
  ...(endDate && { endDate }),
  products: [
    {
      displayName: "Platform",
      scheduling: monthly(1),
      pricing: { type: "FLAT", price: 10 },
      paymentTerm: "Prepayment",
    },
    { displayName: "Support", scheduling: monthly(1), pricing: { type: "FLAT", price: 20 } },
  ],
});

/** Calls the engine as of `at` with `limits` until nothing is left; returns the invoices each call made. */
async function billInCalls(account: BillingAccount, at: string, limits: Partial<typeof RUN_LIMITS>) {
  const repositories = createRepositories(server.service.db);
  const madePerCall: number[] = [];
  for (let call = 0; call < 1_000; call += 1) {
    const run = await runBilling(repositories, account.accountId, new Date(at), createLogger("silent"), {
      graceMs: GRACE_MS,
      draftMs: 0,
      limits: { ...RUN_LIMITS, ...limits },
    });
    madePerCall.push(run.invoicesCreated);
    if (!run.hasMore) return madePerCall;
  }
  throw new Error("the run never finished");
}

/** The contract's invoices as [cycle start, timing, amount]: "advance" for the prepaid ones. */
const summary = (invoices: any[]) =>
  invoices
    .map((invoice) => [invoice.billingCycle.startTime, invoice.lineItems[0].name, invoice.amount])
    .sort(([a, nameA], [b, nameB]) => (a < b ? -1 : a > b ? 1 : nameA < nameB ? -1 : 1));

/** Every month of 2015 and 2016: a Platform invoice of 10.00 and a Support invoice of 20.00. */
const twoYears = Array.from({ length: 24 }, (_, month) => {
  const start = day(new Date(Date.UTC(2015, month, 1)).toISOString().slice(0, 10));
  return [
    [start, "Platform", 10],
    [start, "Support", 20],
  ];
}).flat();

describe("a catch-up run split over several calls", () => {
  it.each([1, 2, 3, 5])(
    "makes every prepaid and arrears invoice when each call stops after %i invoices (a stop at every position)",
    async (invoicesPerCall) => {
      const account = await billingAccount(server);
      // Ahead of it in the run: a contract due earlier.
      const ahead = await account.contract({
        startDate: "2014-12-01T00:00:00Z",
        endDate: "2015-03-01T00:00:00Z",
        products: [{ displayName: "Old", scheduling: monthly(1), pricing: { type: "FLAT", price: 5 } }],
      });
      const contract = await account.contract(prepaidBesideArrears("2015-01-01T00:00:00Z", "2017-01-01T00:00:00Z"));

      // The last Support invoice (December 2016) is ready on Jan 1, 2017 at 01:00.
      const madePerCall = await billInCalls(account, "2017-01-01T01:00:00Z", { invoicesPerCall });
      expect(Math.max(...madePerCall)).toBeLessThanOrEqual(invoicesPerCall);
      expect(madePerCall.reduce((total, made) => total + made, 0)).toBe(48 + 3);

      // 24 × 10.00 + 24 × 20.00 = 720.00; Old: December, January, February at 5.00.
      const invoices = await account.invoices(contract.id);
      expect(summary(invoices)).toEqual(twoYears);
      expect((await account.invoices(ahead.id)).map((invoice) => invoice.amount)).toEqual([5, 5, 5]);
    },
  );

  // About 50 calls in a row, each planning the contract anew: over 30 s on a loaded 2-core machine (seen in CI).
  it("a call stopped by its time budget resumes where it stopped", { timeout: 300_000 }, async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(prepaidBesideArrears("2015-01-01T00:00:00Z", "2017-01-01T00:00:00Z"));
    // A budget of 0 ms: every call makes its first invoice only.
    const madePerCall = await billInCalls(account, "2017-01-01T01:00:00Z", { timeBudgetMs: 0 });
    expect(madePerCall.filter((made) => made > 1)).toEqual([]);
    expect(summary(await account.invoices(contract.id))).toEqual(twoYears);
  });
});

describe("a database written by the version that lost prepaid invoices heals", () => {
  /**
   * The state that version left: every invoice but one prepaid one, and the schedule past it (at the moment it
   * wrote for "never due again" once the contract ended, or at a later invoice's ready time), without the mark
   * of schedules written since.
   */
  async function loseInvoice(contractId: string, cycleStart: string, nextDueAt: Date) {
    const { db } = server.service;
    const lost = await db.collection("invoices").findOneAndDelete({
      contractId,
      "billingCycle.startTime": new Date(cycleStart),
      "lineItems.name": "Platform",
    });
    expect(lost?.amount).toBe(10_000_000); // 10.00 in micro-units
    await db
      .collection("billingSchedules")
      .updateOne({ _id: new ObjectId(contractId) }, { $set: { nextDueAt }, $unset: { checkedFromStart: "" } });
    return lost?._id.toHexString();
  }

  it("an ended contract: the next run, at any `at`, makes the missing invoice once", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(prepaidBesideArrears("2015-01-01T00:00:00Z", "2016-01-01T00:00:00Z"));
    await runToEnd(account, "2016-01-01T01:00:00Z");
    const complete = await account.invoices(contract.id);
    expect(complete).toHaveLength(24);
    const lostId = await loseInvoice(contract.id, day("2015-06-01"), new Date("9999-12-31T00:00:00Z"));
    expect(await account.invoices(contract.id)).toHaveLength(23);

    // A run at an `at` long after the contract's end, then one before the lost invoice was due: neither matters.
    expect(invoicesMadeBy(await runToEnd(account, "2020-01-01T00:00:00Z"))).toEqual([lostId]);
    expect(invoicesMadeBy(await runToEnd(account, "2015-03-01T00:00:00Z"))).toEqual([]);
    const healed = await account.invoices(contract.id);
    expect(summary(healed)).toEqual(summary(complete));
    // Same id (derived from the cycle), issued on June 1 for 10.00.
    expect(healed.find((invoice) => invoice.id === lostId)).toMatchObject({
      billingCycle: { startTime: day("2015-06-01"), endTime: day("2015-07-01") },
      amount: 10,
    });
  });

  it("an ongoing contract whose schedule sits past the lost invoice: healed when the contract comes due", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(prepaidBesideArrears("2015-01-01T00:00:00Z"));
    await runToEnd(account, "2015-06-01T01:00:00Z");
    // Jan..Jun prepaid (6 × 10.00) and Jan..May arrears (5 × 20.00).
    expect(await account.invoices(contract.id)).toHaveLength(11);
    // The old version stopped on May's Support invoice and moved past June's Platform one, to July 1 then.
    const lostId = await loseInvoice(contract.id, day("2015-06-01"), new Date("2015-07-01T00:00:00Z"));

    const made = invoicesMadeBy(await runToEnd(account, "2015-07-01T01:00:00Z"));
    expect(made).toHaveLength(3); // the lost June Platform, July Platform, June Support
    expect(made).toContain(lostId);
    const invoices = await account.invoices(contract.id);
    expect(invoices.filter((invoice) => invoice.lineItems[0].name === "Platform").map((i) => i.amount)).toEqual(
      Array(7).fill(10),
    );
    expect(invoices.filter((invoice) => invoice.lineItems[0].name === "Support").map((i) => i.amount)).toEqual(
      Array(6).fill(20),
    );
    expect(invoicesMadeBy(await runToEnd(account, "2015-07-01T01:00:00Z"))).toEqual([]);
  });
});
