import { ObjectId } from "mongodb";
import { describe, expect, it } from "vitest";
import { CLAIM_LEASE_MS, claimStep } from "../src/domain/billing/claims.js";
import type { BillingClaimDoc } from "../src/repositories/billing-claims.js";
import { createRepositories } from "../src/repositories/index.js";
import { type BillingAccount, billingAccount, committed, day } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/** Concurrent billing calls split the due contracts by claims (docs/decisions.md, "Billing engine" → Claims). */
const server = useTestServer();
const claims = () => server.service.db.collection<BillingClaimDoc>("billingClaims");
/** How many claims stand on these contracts (looked up by `_id`, as the service does). */
const claimsOn = (contractIds: string[]) =>
  claims().countDocuments({ _id: { $in: contractIds.map((id) => new ObjectId(id)) } });

/** Calls POST /billing-runs until hasMore is false; every call's answer. */
async function loop(account: BillingAccount, at: string) {
  const calls = [];
  for (;;) {
    const run = await account.run(at);
    calls.push(run);
    if (!run.hasMore) return calls;
    if (calls.length === 500) throw new Error("still has more after 500 calls");
  }
}
const total = (calls: { invoicesCreated: number }[]) => calls.reduce((sum, call) => sum + call.invoicesCreated, 0);

/** A claim of a caller that is gone, on a contract, with its lease ending at `expiresAt`. */
const deadCallersClaim = (account: BillingAccount, contractId: string, expiresAt: Date): BillingClaimDoc => ({
  _id: new ObjectId(contractId),
  accountId: account.accountId,
  holder: "a call that died",
  expiresAt,
});

describe("which call works on a due contract", () => {
  const now = new Date("2026-01-01T12:00:00Z");
  it("takes a free contract, retakes one whose lease ran out, skips a live holder's and its own", () => {
    expect(claimStep(undefined, "me", now)).toBe("take");
    expect(claimStep({ holder: "other", expiresAt: new Date("2026-01-01T12:00:00Z") }, "me", now)).toBe("retake");
    expect(claimStep({ holder: "other", expiresAt: new Date("2026-01-01T12:00:00.001Z") }, "me", now)).toBe("held");
    expect(claimStep({ holder: "me", expiresAt: new Date("2026-01-01T12:01:00Z") }, "me", now)).toBe("mine");
  });
});

describe("concurrent run loops", () => {
  it("two loops at the same `at` split the contracts: each makes about half, together each invoice once", async () => {
    const account = await billingAccount(server);
    const contracts = 80;
    const contractIds: string[] = [];
    // A customer each, as at a month-end: credits are per customer, so no contract holds back another's invoices.
    for (let i = 0; i < contracts; i += 1) {
      const customerId = await account.newCustomer({ name: `Customer ${i}` });
      contractIds.push((await account.contract({ customerId, startDate: "2024-01-01T00:00:00Z", ...oneSeat })).id);
    }
    // A run mid-January moves each new schedule from the contract's start to its first invoice (Feb 1), as the
    // previous month-end's run leaves them; it makes nothing.
    expect(total(await loop(account, "2024-01-15T00:00:00Z"))).toBe(0);
    const at = "2024-02-01T00:00:00Z";
    const [first, second] = await Promise.all([loop(account, at), loop(account, at)]);
    // One January invoice per contract, 1 × 10.00: 80 invoices, each reported by one call.
    const made = [...first, ...second].flatMap((call) => call.invoiceIds);
    expect(made).toHaveLength(contracts);
    expect(new Set(made).size).toBe(contracts);
    expect(await account.allInvoices()).toHaveLength(contracts);
    // Each loop made a share. (Racing for every invoice would split them too: the tests below show that a held
    // contract is left to its holder, and the bench shows the time two loops take against one.)
    expect(total(first)).toBeGreaterThanOrEqual(contracts / 4);
    expect(total(second)).toBeGreaterThanOrEqual(contracts / 4);
    // Every claim was released by the call that took it.
    expect(await claimsOn(contractIds)).toBe(0);
  }, 240_000);
});

const oneSeat = { products: [committed(1, 10)] };

describe("claims of calls that died", () => {
  it("skips a contract a live call holds until its lease ends, and retakes an expired claim at once", async () => {
    const account = await billingAccount(server);
    // Another customer's: a contract not worked on holds back only its own customer's invoices.
    const otherCustomer = await account.newCustomer({ name: "Other Co" });
    const held = await account.contract({ customerId: otherCustomer, startDate: "2024-01-01T00:00:00Z", ...oneSeat });
    const expired = await account.contract({ startDate: "2024-01-01T00:00:00Z", ...oneSeat });
    const free = await account.contract({ startDate: "2024-01-01T00:00:00Z", ...oneSeat });
    const leaseEnds = new Date(Date.now() + 5_000);
    await claims().insertMany([
      deadCallersClaim(account, held.id, leaseEnds),
      deadCallersClaim(account, expired.id, new Date(Date.now() - CLAIM_LEASE_MS)),
    ]);

    const during = await account.run("2024-02-01T00:00:00Z");
    // January (10.00) of the two contracts nobody holds. The held one is its holder's to finish: nothing more for
    // this caller (hasMore: false) until the lease runs out.
    expect(during).toMatchObject({ contractsBilled: 2, invoicesCreated: 2, hasMore: false });
    expect((await account.invoices(expired.id)).map(({ billingCycle }) => billingCycle.startTime)).toEqual([
      day("2024-01-01"),
    ]);
    expect(await account.invoices(free.id)).toHaveLength(1);
    expect(await account.invoices(held.id)).toEqual([]);
    expect(await account.run("2024-02-01T00:00:00Z")).toMatchObject({ contractsBilled: 0, invoicesCreated: 0 });

    await new Promise((resolve) => setTimeout(resolve, leaseEnds.getTime() - Date.now() + 50));
    const after = await account.run("2024-02-01T00:00:00Z");
    expect(after).toMatchObject({ contractsBilled: 1, invoicesCreated: 1, hasMore: false });
    expect((await account.invoices(held.id)).map(({ amount }) => amount)).toEqual([10]);
    expect(await claimsOn([held.id, expired.id, free.id])).toBe(0);
  });

  it("a held contract holds back its customer's invoices ready after it (credits pay in ready order)", async () => {
    const account = await billingAccount(server);
    // Same customer: both January invoices (arrears) are ready Feb 1, both Februaries Mar 1.
    const held = await account.contract({ startDate: "2024-01-01T00:00:00Z", ...oneSeat });
    const free = await account.contract({ startDate: "2024-01-01T00:00:00Z", ...oneSeat });
    // A run in January moves both schedules to their first invoice, Feb 1; then a live call holds `held`.
    await account.run("2024-01-15T00:00:00Z");
    await claims().insertOne(deadCallersClaim(account, held.id, new Date(Date.now() + 60_000)));
    await account.grant(15);

    const run = await account.run("2024-03-01T00:00:00Z");
    // Only `free`'s January, 10.00, paid from the 15.00 grant; its February waits behind `held`'s January.
    expect(run).toMatchObject({ contractsBilled: 1, invoicesCreated: 1, hasMore: true });
    expect((await account.invoices(free.id)).map(({ billingCycle }) => billingCycle.startTime)).toEqual([
      day("2024-01-01"),
    ]);
    await claims().deleteOne({ _id: new ObjectId(held.id) });
    await loop(account, "2024-03-01T00:00:00Z");
    // Then in ready order: held's January takes the remaining 5.00 (owes 5.00), both Februaries owe 10.00.
    const owed = async (contractId: string) =>
      (await account.invoices(contractId)).map((invoice) => invoice.revenueBreakdown.creditsUsed);
    expect(await owed(free.id)).toEqual([10, 0]);
    expect(await owed(held.id)).toEqual([5, 0]);
  });

  it("the scheduler's purge removes expired claims only, a bounded batch", async () => {
    const account = await billingAccount(server);
    const { billingClaims } = createRepositories(server.service.db);
    const now = new Date();
    const expiredIds = [new ObjectId(), new ObjectId(), new ObjectId()];
    const live = new ObjectId();
    await claims().insertMany([
      ...expiredIds.map((id) => deadCallersClaim(account, id.toHexString(), new Date(now.getTime() - 1_000))),
      deadCallersClaim(account, live.toHexString(), new Date(now.getTime() + 60_000)),
    ]);
    expect(await billingClaims.purgeExpired(now, 2)).toBe(2);
    expect(await billingClaims.purgeExpired(now, 2)).toBe(1);
    const left = await claims()
      .find({ _id: { $in: [...expiredIds, live] } })
      .toArray();
    expect(left.map(({ _id }) => _id.toHexString())).toEqual([live.toHexString()]);
  });
});
