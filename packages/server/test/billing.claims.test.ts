import { ObjectId } from "mongodb";
import { describe, expect, it } from "vitest";
import { batchSize, CLAIM_LEASE_MS, claimStep, nextClaimWait } from "../src/domain/billing/claims.js";
import { createLogger } from "../src/logger.js";
import type { BillingClaimDoc } from "../src/repositories/billing-claims.js";
import type { Hooks } from "../src/repositories/hooks.js";
import { createRepositories } from "../src/repositories/index.js";
import { RUN_LIMITS, type RunLimits } from "../src/services/billing/pass.js";
import { runBilling } from "../src/services/billing/run.js";
import { purgeExpiredRecords } from "../src/services/expiry-purge.js";
import { type BillingAccount, billingAccount, committed, cyclesOf, day } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { runOnOwnClient } from "./support/own-client-run.js";

/** Concurrent billing calls split the due contracts by claims (docs/decisions.md, "Billing engine" → Claims). */
const server = useTestServer();
const claims = () => server.service.db.collection<BillingClaimDoc>("billingClaims");
/** How many claims stand on these contracts (looked up by `_id`, as the service does). */
const claimsOn = (contractIds: string[]) => claims().countDocuments({ _id: { $in: contractIds } });

/** Calls POST /billing-runs (or `call`) until hasMore is false; every call's answer. */
async function loop(
  account: BillingAccount,
  at: string,
  call: (at: string) => Promise<{ invoiceIds: string[]; invoicesCreated: number; hasMore: boolean }> = account.runOnce,
) {
  const calls = [];
  for (;;) {
    const run = await call(at);
    calls.push(run);
    if (!run.hasMore) return calls;
    if (calls.length === 500) throw new Error("still has more after 500 calls");
  }
}
/**
 * One call of the service's own run for the account (not over REST), with these of RUN_LIMITS changed and the test
 * server's terms unless told (no grace; invoices final at once).
 */
function serviceRun(account: BillingAccount, limits: Partial<RunLimits>, graceMs = 0, hooks?: Hooks) {
  const repositories = createRepositories(server.service.db, { hooks });
  return (at: string) =>
    runBilling(repositories, account.accountId, new Date(at), createLogger("silent"), {
      graceMs,
      draftMs: 0,
      limits: { ...RUN_LIMITS, ...limits },
    });
}
/** One call of the service's run that waits for other calls' claims within its time budget only (a tick's call). */
const withinBudget = (account: BillingAccount) => serviceRun(account, { holdersWaitMs: RUN_LIMITS.timeBudgetMs });
const total = (calls: { invoicesCreated: number }[]) => calls.reduce((sum, call) => sum + call.invoicesCreated, 0);

/** A claim of another caller on a contract, for its work due by `at`, with its lease ending at `expiresAt`. */
const othersClaim = (account: BillingAccount, contractId: string, expiresAt: Date, at = "2024-02-01T00:00:00Z") => ({
  _id: contractId,
  accountId: account.accountId,
  holder: "another call",
  at: new Date(at),
  expiresAt,
});

describe("which call works on a due contract", () => {
  const now = new Date("2026-01-01T12:00:00Z");
  const feb1 = new Date("2024-02-01T00:00:00Z");
  const claim = (holder: string, expiresAt: string, at = feb1) => ({ holder, at, expiresAt: new Date(expiresAt) });
  const mine = { holder: "me", now, nextDueAt: feb1 };

  it("takes a free contract, retakes one whose lease ran out, skips a live holder's and its own", () => {
    expect(claimStep(undefined, mine)).toBe("take");
    expect(claimStep(claim("other", "2026-01-01T12:00:00Z"), mine)).toBe("retake");
    expect(claimStep(claim("other", "2026-01-01T12:00:00.001Z"), mine)).toBe("held");
    expect(claimStep(claim("me", "2026-01-01T12:01:00Z"), mine)).toBe("mine");
  });

  it("waits longer after each look that found nothing to claim: 100, 200, 400, then 800 ms each", () => {
    const waits: number[] = [];
    for (let wait: number | undefined; waits.length < 6; waits.push(wait)) wait = nextClaimWait(wait);
    expect(waits).toEqual([100, 200, 400, 800, 800, 800]);
  });

  it("claims a later batch no larger than the call can bill in its time left at its own pace", () => {
    // 1,000 ms left at 100 ms an invoice: 10 of the 20 wanted; at 40 ms: 25 ≥ 20, all 20; 30 ms left: at least one.
    expect(batchSize(20, 1_000, 100)).toBe(10);
    expect(batchSize(20, 1_000, 40)).toBe(20);
    expect(batchSize(20, 30, 100)).toBe(1);
    // No pace yet (nothing billed by the call so far): all it wanted.
    expect(batchSize(20, 500, undefined)).toBe(20);
  });

  it("retakes a live claim once the contract has nothing due at the holder's `at`, never before", () => {
    const holderAtFeb1 = claim("other", "2026-01-01T12:01:00Z", feb1);
    // Due Feb 1 = the holder's `at`: the holder's work. Due Mar 1 (it billed February's start): no longer its work.
    expect(claimStep(holderAtFeb1, { ...mine, nextDueAt: feb1 })).toBe("held");
    expect(claimStep(holderAtFeb1, { ...mine, nextDueAt: new Date("2024-03-01T00:00:00Z") })).toBe("retake");
    expect(claimStep(holderAtFeb1, { ...mine, nextDueAt: new Date("2024-02-01T00:00:00.001Z") })).toBe("retake");
  });
});

const oneSeat = { products: [committed(1, 10)] };

/** An account with `count` customers of one contract each (1 × 10.00 a month from Jan 1), schedules at Feb 1. */
async function monthEnd(count: number) {
  const account = await billingAccount(server);
  const contractIds: string[] = [];
  // A customer each, as at a month-end: credits are per customer, so no contract holds back another's invoices.
  for (let i = 0; i < count; i += 1) {
    const customerId = await account.newCustomer({ name: `Customer ${i}` });
    contractIds.push((await account.contract({ customerId, startDate: "2024-01-01T00:00:00Z", ...oneSeat })).id);
  }
  // A run mid-January moves each new schedule from the contract's start to its first invoice (Feb 1), as the
  // previous month-end's run leaves them; it makes nothing.
  expect(total(await loop(account, "2024-01-15T00:00:00Z"))).toBe(0);
  return { account, contractIds };
}

describe("concurrent run loops", () => {
  it("two loops at the same `at` split the contracts: each makes about half, together each invoice once", async () => {
    const contracts = 40;
    const { account, contractIds } = await monthEnd(contracts);
    const at = "2024-02-01T00:00:00Z";
    // Batches of 10 contracts: a call claims up to 100 at a time, so 40 would be one call's whole batch. Neither loop
    // stores an invoice before the other has priced one: each has claimed a batch of its own by then, however the
    // machine's load orders them (else a loop ahead on a busy machine may claim and bill every batch).
    const arrivals = [0, 1].map(() => {
      let arrive!: () => void;
      return { arrived: new Promise<void>((resolve) => (arrive = resolve)), arrive };
    });
    const meetBeforeStoring =
      (own: number): Hooks =>
      async (point) => {
        if (point !== "invoices.insert") return;
        arrivals[own]?.arrive();
        await arrivals[1 - own]?.arrived;
      };
    const inBatchesOf10 = (own: number) => serviceRun(account, { contractsPerClaim: 10 }, 0, meetBeforeStoring(own));
    const [first, second] = await Promise.all([
      loop(account, at, inBatchesOf10(0)),
      loop(account, at, inBatchesOf10(1)),
    ]);
    // One January invoice per contract, 1 × 10.00: 40 invoices, each reported by one call.
    const made = [...first, ...second].flatMap((call) => call.invoiceIds);
    expect(made).toHaveLength(contracts);
    expect(new Set(made).size).toBe(contracts);
    const invoices = await account.allInvoices();
    expect(invoices).toHaveLength(contracts);
    // Both loops said hasMore: false, so every invoice is final (INVOICE_DRAFT_PERIOD 0): none left for a later call.
    expect(invoices.filter((invoice: { status: string }) => invoice.status !== "FINALIZED")).toEqual([]);
    // Each loop made a share (batches of 10 contracts: the first batch of each is its own).
    expect(total(first)).toBeGreaterThanOrEqual(contracts / 4);
    expect(total(second)).toBeGreaterThanOrEqual(contracts / 4);
    // Every claim was released by the call that took it.
    expect(await claimsOn(contractIds)).toBe(0);
  }, 240_000);

  it("loops at different `at`s lose nothing: the later bills what the earlier one's claims did not cover", async () => {
    const contracts = 30;
    const { account, contractIds } = await monthEnd(contracts);
    const [february, march] = await Promise.all([
      loop(account, "2024-02-01T00:00:00Z"),
      loop(account, "2024-03-01T00:00:00Z"),
    ]);
    // By Mar 1 each contract has January and February (10.00 each): 60 invoices, each made once, by either loop;
    // the Feb 1 loop can have made Januaries only.
    const made = [...february, ...march].flatMap((call) => call.invoiceIds);
    expect(made).toHaveLength(2 * contracts);
    expect(new Set(made).size).toBe(2 * contracts);
    for (const contractId of contractIds) {
      expect(cyclesOf(await account.invoices(contractId)).map(([start]) => start)).toEqual([
        day("2024-01-01"),
        day("2024-02-01"),
      ]);
    }
    expect(total(february)).toBeLessThanOrEqual(contracts);
    expect(await claimsOn(contractIds)).toBe(0);
  }, 240_000);

  it("single calls at different `at`s, at once: the later call waits for the earlier one's claims", async () => {
    for (let round = 0; round < 3; round += 1) {
      const account = await billingAccount(server);
      const first = await account.contract({ startDate: "2024-01-01T00:00:00Z", ...oneSeat });
      const second = await account.contract({ startDate: "2024-01-01T00:00:00Z", ...oneSeat });
      const [march] = await Promise.all([
        account.runOnce("2024-03-01T00:00:00Z"),
        account.runOnce("2024-02-01T00:00:00Z"),
      ]);
      // The Mar 1 call is done when it says so (hasMore: false): January and February of both contracts exist.
      // (It waits for the Feb 1 call's claims within its 3 s budget; a loaded machine may end it sooner: call again.)
      if (march.hasMore) await loop(account, "2024-03-01T00:00:00Z");
      for (const contract of [first, second])
        expect(cyclesOf(await account.invoices(contract.id)).map(([start]) => start)).toEqual([
          day("2024-01-01"),
          day("2024-02-01"),
        ]);
      expect(await claimsOn([first.id, second.id])).toBe(0);
    }
  }, 120_000);
});

describe("a month-end of more due contracts than a call reads", () => {
  it("bills in its first call: a schedule waits at its invoice's ready moment, after the grace", async () => {
    const account = await billingAccount(server);
    // Four customers, one 10.00 monthly contract each (in arrears, from Jan 1); a call reads 3 due contracts (a page
    // is its 2 invoices + 1), so one contract stays unread and holds back the invoices ready after it is due.
    for (let i = 0; i < 4; i += 1) {
      const customerId = await account.newCustomer({ name: `Customer ${i}` });
      await account.contract({ customerId, startDate: "2024-01-01T00:00:00Z", ...oneSeat });
    }
    const call = serviceRun(account, { invoicesPerCall: 2 }, 60 * 60_000);
    // Mid-January: each schedule moves to its January invoice, ready Feb 1 01:00 (the cycle ends, an hour of grace).
    while ((await call("2024-01-15T00:00:00Z")).hasMore);
    const made: number[] = [];
    for (let hasMore = true; hasMore; ) {
      const run = await call("2024-02-02T00:00:00Z");
      made.push(run.invoicesCreated);
      hasMore = run.hasMore && made.length < 10;
    }
    // The schedules used to wait at Feb 1 00:00 (February's start): the unread contract, due from then, held back
    // the invoices ready at 01:00, and the first call made none (0, 2, 2): a call of 100 at every month-end.
    expect(made).toEqual([2, 2]);
  });
});

describe("a call past its time budget", () => {
  /** The invoices each call made of the service's run with no time budget (each call past it from its start). */
  const callsWithoutBudget = async (account: BillingAccount, at: string) =>
    (await loop(account, at, serviceRun(account, { timeBudgetMs: 0 }))).map(({ invoicesCreated }) => invoicesCreated);

  it("still makes the first invoice of each contract of its first batch, not their later ones", async () => {
    // Three customers, one 10.00 monthly contract each from Jan 1: by Mar 1 January and February are due on each.
    // A call past its budget used to make one invoice (1, 1, 1, 1, 1, 1): it has read for its whole batch.
    const account = await billingAccount(server);
    const contractIds: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const customerId = await account.newCustomer({ name: `Customer ${i}` });
      contractIds.push((await account.contract({ customerId, startDate: "2024-01-01T00:00:00Z", ...oneSeat })).id);
    }
    expect(await callsWithoutBudget(account, "2024-03-01T00:00:00Z")).toEqual([3, 3]);
    for (const contractId of contractIds) {
      expect(cyclesOf(await account.invoices(contractId)).map(([start]) => start)).toEqual([
        day("2024-01-01"),
        day("2024-02-01"),
      ]);
    }
  });

  it("holds back a customer's later invoices of other contracts once one of its invoices waits", async () => {
    // One customer: A from Jan 1 (January ready Feb 1, February ready Mar 1), B from Feb 10 (its first cycle ready
    // Mar 10). Past the budget the first call makes A's January; A's February waits (not A's first), so B's first,
    // ready after it, waits too: credits pay a customer's invoices in ready order. Then A's February and B's first.
    const account = await billingAccount(server);
    const a = await account.contract({ startDate: "2024-01-01T00:00:00Z", ...oneSeat });
    const b = await account.contract({ startDate: "2024-02-10T00:00:00Z", ...oneSeat });
    expect(await callsWithoutBudget(account, "2024-03-11T00:00:00Z")).toEqual([1, 2]);
    const made = [...(await account.invoices(a.id)), ...(await account.invoices(b.id))];
    const byReadyOrder = [...made].sort(
      (x, y) => Date.parse(x.billingCycle.endTime) - Date.parse(y.billingCycle.endTime),
    );
    // Invoices numbered in the order they were made: ready order.
    expect(byReadyOrder.map((invoice) => invoice.number)).toEqual([...made.map((i) => i.number)].sort());
  });
});

describe("claims of other calls", () => {
  it("waits for a contract a live call holds, says hasMore until its lease ends, retakes an expired one", async () => {
    const account = await billingAccount(server);
    // Another customer's: a contract not worked on holds back only its own customer's invoices.
    const otherCustomer = await account.newCustomer({ name: "Other Co" });
    const held = await account.contract({ customerId: otherCustomer, startDate: "2024-01-01T00:00:00Z", ...oneSeat });
    const expired = await account.contract({ startDate: "2024-01-01T00:00:00Z", ...oneSeat });
    const free = await account.contract({ startDate: "2024-01-01T00:00:00Z", ...oneSeat });
    // A run in January moves the schedules to their first invoice, Feb 1, the `at` of the claims below.
    await loop(account, "2024-01-15T00:00:00Z");
    const leaseEnds = new Date(Date.now() + 8_000);
    await claims().insertMany([
      othersClaim(account, held.id, leaseEnds),
      othersClaim(account, expired.id, new Date(Date.now() - CLAIM_LEASE_MS)),
    ]);

    const during = await account.runOnce("2024-02-01T00:00:00Z");
    // January (10.00) of the two contracts nobody holds. The held one is still due: the call waited for it until its
    // lease ended (8 s, within the call's wait of 10 s), then says hasMore, since the holder (here a call that died)
    // did not bill it and claims are not made past 2 s.
    expect(during).toMatchObject({ contractsBilled: 2, invoicesCreated: 2, hasMore: true });
    expect(cyclesOf(await account.invoices(expired.id)).map(([start]) => start)).toEqual([day("2024-01-01")]);
    expect(await account.invoices(free.id)).toHaveLength(1);
    expect(await account.invoices(held.id)).toEqual([]);

    await new Promise((resolve) => setTimeout(resolve, leaseEnds.getTime() - Date.now() + 50));
    const after = await account.runOnce("2024-02-01T00:00:00Z");
    expect(after).toMatchObject({ contractsBilled: 1, invoicesCreated: 1, hasMore: false });
    expect((await account.invoices(held.id)).map(({ amount }) => amount)).toEqual([10]);
    expect(await claimsOn([held.id, expired.id, free.id])).toBe(0);
  }, 60_000);

  it("passes over other calls' claims with one read of the account's claims, its first page past them", async () => {
    const account = await billingAccount(server);
    // Eight customers with a 10.00 contract each, due Feb 1: the first six in due order (one moment, then by id) are
    // another live call's.
    const contracts: { id: string }[] = [];
    for (let index = 0; index < 8; index += 1) {
      const customerId = await account.newCustomer({ name: `Customer ${index}` });
      contracts.push(await account.contract({ customerId, startDate: "2024-01-01T00:00:00Z", ...oneSeat }));
    }
    await loop(account, "2024-01-15T00:00:00Z");
    const expiresAt = new Date(Date.now() + 60_000);
    await claims().insertMany(contracts.slice(0, 6).map(({ id }) => othersClaim(account, id, expiresAt)));

    // Pages of 3 (2 invoices a call, plus one): the account's six claims are read first, and the first page (6 claims
    // + the 2 wanted + 1) reaches the two free contracts. Pages of 3 with a read of their claims each: three pages and
    // three claims reads; a page of 3 before the claims: a page more. A short wait for the holder at the end (0.3 s).
    const limits = { invoicesPerCall: 2, timeBudgetMs: 300, holdersWaitMs: 300 };
    const { run, commands } = await runOnOwnClient(server, account.accountId, "2024-02-01T00:00:00Z", limits);
    expect(run).toMatchObject({ invoicesCreated: 2, hasMore: true });
    for (const { id } of contracts.slice(6))
      expect((await account.invoices(id)).map(({ amount }) => amount)).toEqual([10]);
    const claiming = commands
      .filter(({ command, commandName }) => ["billingSchedules", "billingClaims"].includes(command[commandName]))
      .map(({ command, commandName }) => {
        const filter = command.filter ?? {};
        const by = filter.accountId && !filter._id ? (filter.nextDueAt ? "due" : "account") : "ids";
        return `${commandName} ${command[commandName]}${commandName === "find" ? ` ${by} ${command.limit ?? ""}` : ""}`;
      });
    // The unchecked schedules' look first (by account, no limit but its page), then the batch up to its claims.
    const batch = claiming.slice(1, claiming.indexOf("insert billingClaims") + 1);
    expect(batch).toEqual(["find billingClaims account 1001", "find billingSchedules due 9", "insert billingClaims"]);
  });

  it("a call whose only due work a live call holds says no more once it is billed, past its budget", async () => {
    const account = await billingAccount(server);
    const held = await account.contract({ startDate: "2024-01-01T00:00:00Z", ...oneSeat });
    await loop(account, "2024-01-15T00:00:00Z");
    await claims().insertOne(othersClaim(account, held.id, new Date(Date.now() + 60_000)));
    const during = account.runOnce("2024-02-01T00:00:00Z");
    // The holder's end 4 s later, past the waiting call's time budget (3 s) but within its wait for holders (10 s):
    // January billed (the schedule moved to Mar 1), the claim released.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const schedules = server.service.db.collection("billingSchedules");
    await schedules.updateOne(
      { _id: new ObjectId(held.id) },
      { $set: { nextDueAt: new Date("2024-03-01T00:00:00Z") } },
    );
    await claims().deleteOne({ _id: held.id });
    // The call waited for it past its budget and found nothing due: no call more for its loop (it answered hasMore
    // at its budget's end, and its loop's next call found the same).
    expect(await during).toMatchObject({ invoicesCreated: 0, hasMore: false });
  });

  it("a later `at` bills at once what a live claim does not cover (the holder's `at` is past)", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", ...oneSeat });
    // Billed by Feb 1 (January), so due next Mar 1; a live call at Feb 1 still holds it.
    await loop(account, "2024-02-01T00:00:00Z");
    await claims().insertOne(othersClaim(account, contract.id, new Date(Date.now() + 60_000)));
    const started = Date.now();
    const run = await account.runOnce("2024-03-01T00:00:00Z");
    // February (10.00), made without waiting for the holder: a wait lasts the call's whole time budget (3 s), which a
    // loaded machine's call of one invoice may come near but does not reach.
    expect(run).toMatchObject({ invoicesCreated: 1, hasMore: false });
    expect(Date.now() - started).toBeLessThan(RUN_LIMITS.timeBudgetMs);
    expect(cyclesOf(await account.invoices(contract.id)).map(([start]) => start)).toEqual([
      day("2024-01-01"),
      day("2024-02-01"),
    ]);
    // The retaking call released its own claim; the holder's was replaced.
    expect(await claimsOn([contract.id])).toBe(0);
  });

  it("leaves a customer's contracts to the call holding one of them: credits pay in ready order", async () => {
    const account = await billingAccount(server);
    // Same customer, one call's: both January invoices (arrears) are ready Feb 1, both Februaries Mar 1.
    const held = await account.contract({ startDate: "2024-01-01T00:00:00Z", ...oneSeat });
    const free = await account.contract({ startDate: "2024-01-01T00:00:00Z", ...oneSeat });
    await loop(account, "2024-01-15T00:00:00Z");
    await claims().insertOne(othersClaim(account, held.id, new Date(Date.now() + 60_000)));
    await account.grant(15);
    // `free` is not claimed while another call holds its customer's `held`: nothing made, hasMore (a call waiting for
    // the holder within its budget, as the scheduler's do: one over REST would wait 10 s for the same answer).
    expect(await withinBudget(account)("2024-03-01T00:00:00Z")).toMatchObject({ invoicesCreated: 0, hasMore: true });
    await claims().deleteOne({ _id: held.id });
    await loop(account, "2024-03-01T00:00:00Z");
    // In ready order (ties by contract id: `held` was made first): held's January takes 10.00 of the 15.00, free's
    // January the remaining 5.00 (owes 5.00), both Februaries owe 10.00.
    const owed = async (contractId: string) =>
      (await account.invoices(contractId)).map((invoice) => invoice.revenueBreakdown.creditsUsed);
    expect(await owed(held.id)).toEqual([10, 0]);
    expect(await owed(free.id)).toEqual([5, 0]);
  }, 60_000);

  it("a customer's contract held by another call holds back the invoices ready after it", async () => {
    const account = await billingAccount(server);
    // Same customer; `free` is first in the due order (due Jan 1 like `held`, an older id).
    const free = await account.contract({ startDate: "2023-12-01T00:00:00Z", ...oneSeat });
    const held = await account.contract({ startDate: "2024-01-01T00:00:00Z", ...oneSeat });
    // Moves free's schedule to its first invoice (December's, ready Jan 1); held's stays at its start, Jan 1.
    await loop(account, "2023-12-15T00:00:00Z");
    await claims().insertOne(othersClaim(account, held.id, new Date(Date.now() + 60_000)));
    await account.grant(15);

    const run = await withinBudget(account)("2024-03-01T00:00:00Z");
    // free's December (ready Jan 1, 10.00 of credit); its January and February wait behind held's January 1.
    expect(run).toMatchObject({ contractsBilled: 1, invoicesCreated: 1, hasMore: true });
    expect(cyclesOf(await account.invoices(free.id)).map(([start]) => start)).toEqual([day("2023-12-01")]);
    await claims().deleteOne({ _id: held.id });
    await loop(account, "2024-03-01T00:00:00Z");
    // Then in ready order, ties by contract id: free's January takes the 5.00 left, held's January nothing.
    const owed = async (contractId: string) =>
      (await account.invoices(contractId)).map((invoice) => invoice.revenueBreakdown.creditsUsed);
    expect(await owed(free.id)).toEqual([10, 5, 0]);
    expect(await owed(held.id)).toEqual([0, 0]);
  }, 60_000);

  it("the purge removes expired claims only", async () => {
    const account = await billingAccount(server);
    const now = new Date();
    const expiredIds = ["c-expired-1", "c-expired-2", "c-expired-3"].map((id) => `${id}-${account.accountId}`);
    const live = `c-live-${account.accountId}`;
    await claims().insertMany([
      ...expiredIds.map((id) => othersClaim(account, id, new Date(now.getTime() - 1_000))),
      othersClaim(account, live, new Date(now.getTime() + 60_000)),
    ]);
    await purgeExpiredRecords(server.service.repositories, now);
    const left = await claims()
      .find({ _id: { $in: [...expiredIds, live] } })
      .toArray();
    expect(left.map(({ _id }) => _id)).toEqual([live]);
  });
});
