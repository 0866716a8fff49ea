import { ObjectId } from "mongodb";
import { describe, expect, it } from "vitest";
import { type BillingAccount, billingAccount, committed, cyclesOf, day } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/**
 * A contract's lifecycle over REST (docs/decisions.md, "Contract lifecycle"): pauses, termination, time's changes as
 * every read shows them, the status machine's 409s, and what billing runs make of them.
 */
const server = useTestServer();

const amounts = (invoices: { amount: number }[]) => invoices.map((invoice) => invoice.amount);

const patch = (account: BillingAccount, contractId: string, body: unknown) =>
  server.rest("PATCH", `/contracts/${contractId}`, { token: account.token, body });
const terminate = (account: BillingAccount, contractId: string, body: unknown = {}) =>
  server.rest("POST", `/contracts/${contractId}/terminate`, { token: account.token, body });
const history = async (account: BillingAccount, contractId: string) => {
  const response = await server.rest("GET", `/contracts/${contractId}/history`, { token: account.token });
  expect(response.status).toBe(200);
  return response.body.history as any[];
};
const read = async (account: BillingAccount, contractId: string) =>
  (await server.rest("GET", `/contracts/${contractId}`, { token: account.token })).body.contract;

/** Open-ended, monthly on the 1st, 10 seats at 30 = 300.00 a cycle. */
const seats = { startDate: "2024-04-01T00:00:00Z", products: [committed(10, 30)] };

describe("pause and resume (PATCH status with effectiveFrom)", () => {
  it("prorates 10 paused days out of a 30-day cycle; unprorated, bills a cycle active on its first day", async () => {
    const account = await billingAccount(server);
    const prorated = await account.contract({ ...seats, shouldProRateInvoices: true });
    const full = await account.contract(seats);
    for (const contract of [prorated, full]) {
      const paused = await patch(account, contract.id, { status: "Inactive", effectiveFrom: "2024-04-11T00:00:00Z" });
      expect(paused.status).toBe(200);
      expect(paused.body.contract.status).toBe("Inactive");
      const resumed = await patch(account, contract.id, { status: "Active", effectiveFrom: "2024-04-21T00:00:00Z" });
      expect(resumed.status).toBe(200);
      expect(resumed.body.contract).toMatchObject({
        status: "Active",
        inactivePeriods: [{ from: day("2024-04-11"), to: day("2024-04-21") }],
      });
    }
    await account.run("2024-06-01T00:00:00Z");

    const invoices = await account.invoices(prorated.id);
    expect(cyclesOf(invoices)).toEqual([
      [day("2024-04-01"), day("2024-05-01")],
      [day("2024-05-01"), day("2024-06-01")],
    ]);
    // April has 30 days, 10 paused (Apr 11..20): 300 × 20 / 30 = 200.00. May, never paused: 300.00.
    expect(amounts(invoices)).toEqual([200, 300]);
    // Without proration: active on Apr 1, April is billed in full.
    expect(amounts(await account.invoices(full.id))).toEqual([300, 300]);
  });

  it("bills no cycle paused on its first day without proration, nor one paused throughout with it", async () => {
    const account = await billingAccount(server);
    const prorated = await account.contract({ ...seats, shouldProRateInvoices: true });
    const full = await account.contract(seats);
    for (const contract of [prorated, full]) {
      expect(
        (await patch(account, contract.id, { status: "Inactive", effectiveFrom: "2024-04-01T00:00:00Z" })).status,
      ).toBe(200);
      expect(
        (await patch(account, contract.id, { status: "Active", effectiveFrom: "2024-05-16T00:00:00Z" })).status,
      ).toBe(200);
    }
    await account.run("2024-06-01T00:00:00Z");
    // Prorated: April paused throughout, no invoice; May active from the 16th: 300 × 16 / 31 = 154.838… → 154.84.
    expect(cyclesOf(await account.invoices(prorated.id))).toEqual([[day("2024-05-01"), day("2024-06-01")]]);
    expect(amounts(await account.invoices(prorated.id))).toEqual([154.84]);
    // Not prorated: April and May were both paused on their first day: nothing billed.
    expect(await account.invoices(full.id)).toEqual([]);
  });

  it("refuses a day an invoice covers (409 naming effectiveFrom) and a resumption before the pause", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(seats);
    await account.run("2024-05-01T00:00:00Z");
    const invoiced = await patch(account, contract.id, { status: "Inactive", effectiveFrom: "2024-04-20T00:00:00Z" });
    expect(invoiced.status).toBe(409);
    expect(invoiced.body.issues).toEqual([expect.objectContaining({ path: "effectiveFrom" })]);
    expect(
      (await patch(account, contract.id, { status: "Inactive", effectiveFrom: "2024-05-10T00:00:00Z" })).status,
    ).toBe(200);
    const early = await patch(account, contract.id, { status: "Active", effectiveFrom: "2024-05-05T00:00:00Z" });
    expect(early.status).toBe(409);
    expect((await read(account, contract.id)).status).toBe("Inactive");
  });
});

describe("termination (POST /contracts/{id}/terminate)", () => {
  it("cuts the last cycle at the day of a past `at`, prorated, and bills nothing after it", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      products: [committed(10, 100)],
      shouldProRateInvoices: true,
    });
    await account.run("2024-03-01T00:00:00Z");
    const terminated = await terminate(account, contract.id, { at: "2024-03-11T00:00:00Z", reason: "moved away" });
    expect(terminated.status).toBe(200);
    expect(terminated.body.contract).toMatchObject({
      status: "Terminated",
      terminationAt: "2024-03-11T00:00:00.000Z",
      terminationReason: "moved away",
    });
    await account.run("2024-06-01T00:00:00Z");
    const invoices = await account.invoices(contract.id);
    expect(cyclesOf(invoices)).toEqual([
      [day("2024-01-01"), day("2024-02-01")],
      [day("2024-02-01"), day("2024-03-01")],
      [day("2024-03-01"), day("2024-03-11")],
    ]);
    // 10 × 100 = 1000 a cycle; March cut after the 10th: 1000 × 10 / 31 = 322.580… → 322.58.
    expect(amounts(invoices)).toEqual([1000, 1000, 322.58]);
  });

  it("refuses an `at` an invoice covers (409 naming at)", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(seats);
    await account.run("2024-06-01T00:00:00Z");
    const refused = await terminate(account, contract.id, { at: "2024-05-15T00:00:00Z" });
    expect(refused.status).toBe(409);
    expect(refused.body.issues).toEqual([expect.objectContaining({ path: "at" })]);
    expect((await read(account, contract.id)).status).toBe("Active");
  });

  it("schedules a future termination (PendingTermination) and records who did it", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(seats);
    const scheduled = await terminate(account, contract.id, { at: "2099-01-01T00:00:00Z" });
    expect(scheduled.status).toBe(200);
    expect(scheduled.body.contract).toMatchObject({ status: "PendingTermination", terminationAt: day("2099-01-01") });
    const entries = await history(account, contract.id);
    expect(entries).toEqual([
      { at: expect.any(String), kind: "transition", from: "Active", to: "PendingTermination", by: expect.any(String) },
    ]);
    expect(entries[0].by).not.toBe("system");
    // Scheduled once: scheduling again is a transition the machine refuses; terminating now brings it forward.
    const again = await terminate(account, contract.id, { at: "2098-01-01T00:00:00Z" });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain("PendingTermination");
    expect((await terminate(account, contract.id, {})).body.contract.status).toBe("Terminated");
  });
});

describe("the status machine", () => {
  it("answers 409 naming the current and the wanted status", async () => {
    const account = await billingAccount(server);
    const inReview = await account.contract({ ...seats, status: "InReview" });
    const refused = await patch(account, inReview.id, { status: "Inactive" });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain("InReview");
    expect(refused.body.message).toContain("Inactive");
    expect((await patch(account, inReview.id, { status: "Active" })).body.contract.status).toBe("Active");
    expect((await patch(account, inReview.id, { status: "Active" })).status).toBe(409);

    const ended = await account.contract(seats);
    expect((await terminate(account, ended.id)).body.contract.status).toBe("Terminated");
    const final = await patch(account, ended.id, { status: "Active" });
    expect(final.status).toBe(409);
    expect(final.body.message).toContain("Terminated");
  });

  it("lets exactly one of racing transitions win", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(seats);
    const answers = await Promise.all([1, 2, 3, 4].map(() => patch(account, contract.id, { status: "Inactive" })));
    // The losers lost the insert of the contract's next transition, or came after the winner: Inactive already.
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409]);
    expect(await history(account, contract.id)).toEqual([expect.objectContaining({ from: "Active", to: "Inactive" })]);
  });

  it("answers 404 for another account's contract, on every lifecycle endpoint", async () => {
    const owner = await billingAccount(server);
    const other = await billingAccount(server);
    const contract = await owner.contract(seats);
    expect((await patch(other, contract.id, { status: "Inactive" })).status).toBe(404);
    expect((await terminate(other, contract.id)).status).toBe(404);
    const foreign = await server.rest("GET", `/contracts/${contract.id}/history`, { token: other.token });
    expect(foreign.status).toBe(404);
    expect((await read(owner, contract.id)).status).toBe("Active");
  });
});

describe("time's changes on every read", () => {
  it("reads a contract whose end has passed as Expired, its expiry in its history, billed to its end", async () => {
    const account = await billingAccount(server);
    // Its end was past when it was entered: a term entered after the fact ends there (it never renews).
    const contract = await account.contract({ ...seats, endDate: "2024-05-16T00:00:00Z", shouldProRateInvoices: true });
    expect(contract.status).toBe("Expired");
    expect((await read(account, contract.id)).status).toBe("Expired");
    expect(await history(account, contract.id)).toEqual([
      { at: day("2024-05-16"), kind: "transition", from: "Active", to: "Expired", by: "system" },
    ]);
    await account.run("2024-07-01T00:00:00Z");
    // April in full (300.00); May up to the 15th: 300 × 15 / 31 = 145.161… → 145.16.
    expect(amounts(await account.invoices(contract.id))).toEqual([300, 145.16]);
    // The run recorded the expiry: the history holds it once.
    expect(await history(account, contract.id)).toHaveLength(1);
    expect((await terminate(account, contract.id)).status).toBe(409);
  });
});

describe("amendments of the fields that do not price (PATCH)", () => {
  it("replaces the fields given, keeps the others, and records which changed", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({ ...seats, accountManager: "Ada", crmOpportunityId: "opp-1" });
    const amended = await patch(account, contract.id, {
      name: "Renamed",
      accountManager: "Grace",
      autoRenewContract: false,
      customFields: [{ serviceCustomFieldName: "tier", value: { level: 2 } }],
    });
    expect(amended.status).toBe(200);
    expect(amended.body.contract).toMatchObject({
      name: "Renamed",
      accountManager: "Grace",
      crmOpportunityId: "opp-1",
      autoRenewContract: false,
      customFields: [{ serviceCustomFieldName: "tier", value: { level: 2 } }],
      status: "Active",
    });
    expect(await read(account, contract.id)).toEqual(amended.body.contract);
    expect(await history(account, contract.id)).toEqual([
      {
        at: expect.any(String),
        kind: "amendment",
        fields: ["accountManager", "autoRenewContract", "customFields", "name"],
        by: expect.any(String),
      },
    ]);
    // An empty change changes nothing and records nothing.
    const empty = await patch(account, contract.id, {});
    expect(empty.status).toBe(200);
    expect(empty.body.contract.updatedAt).toBe(amended.body.contract.updatedAt);
    expect(await history(account, contract.id)).toHaveLength(1);
  });

  it("moves endDate no earlier than what is invoiced, and bills up to the new end", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({ ...seats, shouldProRateInvoices: true });
    await account.run("2024-06-01T00:00:00Z");
    const invoiced = await patch(account, contract.id, { endDate: "2024-05-15T00:00:00Z" });
    expect(invoiced.status).toBe(409);
    expect(invoiced.body.issues).toEqual([expect.objectContaining({ path: "endDate" })]);
    const ended = await patch(account, contract.id, { endDate: "2024-06-16T00:00:00Z" });
    expect(ended.status).toBe(200);
    // The new end has passed (and was never lived through): it reads Expired.
    expect(ended.body.contract).toMatchObject({ endDate: "2024-06-16T00:00:00.000Z", status: "Expired" });
    await account.run("2024-08-01T00:00:00Z");
    // April and May in full (300.00 each); June up to the 15th: 300 × 15 / 30 = 150.00; nothing after.
    expect(amounts(await account.invoices(contract.id))).toEqual([300, 300, 150]);
  });

  it("refuses effectiveFrom without status, and an endDate not after startDate (400 naming the field)", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(seats);
    const alone = await patch(account, contract.id, { effectiveFrom: "2024-05-01T00:00:00Z" });
    expect(alone.status).toBe(400);
    expect(alone.body.issues).toEqual([expect.objectContaining({ path: "effectiveFrom" })]);
    const backwards = await patch(account, contract.id, { endDate: "2024-04-01T12:00:00Z" });
    expect(backwards.status).toBe(400);
    expect(backwards.body.issues).toEqual([expect.objectContaining({ path: "endDate" })]);
    // New terms need the day they bill from (contracts.amendments.test.ts amends them).
    const undated = await patch(account, contract.id, { products: [] });
    expect(undated.status).toBe(400);
    expect(undated.body.issues).toEqual([expect.objectContaining({ path: "effectiveFrom" })]);
  });
});

describe("a renewing term's end (issue 23: a prepaid cycle billed once across a renewal)", () => {
  it("bills a prepaid cycle across the end whole, then refuses to switch renewal off while it stands", async () => {
    // Runs refuse a future `at`, so the end lies two days from now: the contract lives through it and renews.
    const account = await billingAccount(server);
    const now = new Date();
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const billingDay = now.getUTCDate();
    const inTwoDays = new Date(today + 2 * 86_400_000).toISOString();
    const contract = await account.contract({
      startDate: new Date(today).toISOString(),
      endDate: inTwoDays,
      shouldProRateInvoices: true,
      products: [committed(10, 30, billingDay, { paymentTerm: "Prepayment" })],
    });
    await account.run(now.toISOString());
    // The cycle from today to the same day next month (clamped), billed whole: 10 × 30.00 = 300.00, not cut at the end
    // in two days (a cut cycle would be 300.00 × 2 / its days, then the whole one again after the renewal).
    const monthLater = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    const nextMonthDays = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 2, 0)).getUTCDate();
    const cycleEnd = monthLater + (Math.min(billingDay, nextMonthDays) - 1) * 86_400_000;
    const invoices = await account.invoices(contract.id);
    expect(cyclesOf(invoices)).toEqual([[new Date(today).toISOString(), new Date(cycleEnd).toISOString()]]);
    expect(amounts(invoices)).toEqual([300]);

    // Nor may a termination, even a scheduled one, cut the invoiced cycle (it would bill its days again).
    const cut = await terminate(account, contract.id, { at: inTwoDays });
    expect(cut.status).toBe(409);
    expect(cut.body.issues).toEqual([expect.objectContaining({ path: "at" })]);

    const refused = await patch(account, contract.id, { autoRenewContract: false });
    expect(refused.status).toBe(409);
    expect(refused.body.issues).toEqual([expect.objectContaining({ path: "autoRenewContract" })]);
    expect((await read(account, contract.id)).autoRenewContract).toBe(true);
    // With an end past what is invoiced, renewal may stop: the term ends there.
    const later = new Date(cycleEnd + 86_400_000).toISOString();
    const ended = await patch(account, contract.id, { autoRenewContract: false, endDate: later });
    expect(ended.status).toBe(200);
    expect(ended.body.contract).toMatchObject({ autoRenewContract: false, endDate: later });
  });
});

describe("deletion by the machine", () => {
  /** The contract's lifecycle log as stored: a deleted contract's history is read by no request. */
  const logOf = async (contractId: string) => {
    type Entry = { contractId: string; n: number; at: Date; kind: string; from?: string; to?: string; by: string };
    const entries = await server.service.db
      .collection<Entry>("contractTransitions")
      .find({ contractId }, { sort: { n: 1 }, projection: { _id: 0, at: 1, kind: 1, from: 1, to: 1, by: 1 } })
      .toArray();
    return entries.map(({ at, ...entry }) => ({ at: at.toISOString(), ...entry }));
  };
  const remove = (account: BillingAccount, contractId: string) =>
    server.rest("DELETE", `/contracts/${contractId}`, { token: account.token });

  it("keeps an Expired contract Expired, its expiry and its deletion logged, never Terminated", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({ ...seats, endDate: "2024-05-16T00:00:00Z" });
    expect(contract.status).toBe("Expired");
    const deleted = await remove(account, contract.id);
    expect(deleted.status).toBe(200);
    expect(deleted.body.contract).toMatchObject({ status: "Expired", deletedAt: expect.any(String) });
    const log = await logOf(contract.id);
    expect(log).toEqual([
      { at: day("2024-05-16"), kind: "transition", from: "Active", to: "Expired", by: "system" },
      { at: deleted.body.contract.deletedAt, kind: "deletion", by: expect.any(String) },
    ]);
    expect(log[1]?.by).not.toBe("system");
    expect((await server.rest("GET", `/contracts/${contract.id}`, { token: account.token })).status).toBe(404);
    const stored = await server.service.db.collection("contracts").findOne({ _id: new ObjectId(contract.id) });
    expect(stored).toMatchObject({ status: "Expired", version: 2 });
  });

  it("ends a live contract Terminated, by the token that deleted it, after the expiry a run recorded", async () => {
    const account = await billingAccount(server);
    const live = await account.contract(seats);
    const deleted = (await remove(account, live.id)).body.contract;
    expect(deleted).toMatchObject({ status: "Terminated", updatedAt: deleted.deletedAt });
    expect(await logOf(live.id)).toEqual([
      { at: deleted.deletedAt, kind: "deletion", from: "Active", to: "Terminated", by: expect.any(String) },
    ]);

    const ended = await account.contract({ ...seats, endDate: "2024-05-16T00:00:00Z" });
    await account.run("2024-07-01T00:00:00Z");
    expect(await history(account, ended.id)).toHaveLength(1);
    expect((await remove(account, ended.id)).body.contract.status).toBe("Expired");
    expect((await logOf(ended.id)).map(({ kind, to }) => [kind, to])).toEqual([
      ["transition", "Expired"],
      ["deletion", undefined],
    ]);
  });
});
