import { ObjectId } from "mongodb";
import { describe, expect, it, vi } from "vitest";
import { billingAccount, day, invoicesMadeBy, runToEnd } from "./support/billing.js";
import { GRACE_MS, prepaidBesideArrears, summary } from "./support/catch-up.js";
import { useTestServer } from "./support/harness.js";

/**
 * A database written by the version that lost prepaid invoices heals (docs/decisions.md, "Billing engine" → Ready
 * order): the next run makes the lost invoice once, whenever it comes. Split from billing.catch-up.test.ts, whose
 * calls stopped at every position take most of its time.
 */
const server = useTestServer({ billingGraceMs: GRACE_MS });
// A year of invoices billed through the API takes seconds on a loaded two-core machine: correctness, not speed.
vi.setConfig({ testTimeout: 300_000 });

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
