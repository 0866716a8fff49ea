import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, inject, it } from "vitest";
import { watchEveryClient } from "../src/db/connect.js";
import { workOrigin } from "../src/observability/work-origin.js";
import { billingAccount, committed } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { runOnOwnClient } from "./support/own-client-run.js";

/** Billing runs (docs/decisions.md, "Billing engine" → Billable contracts, Exactly once, POST /billing-runs). */
const server = useTestServer();

/** Reads of `accounts` the service sends answering calls while `countingAccountReads` (driver command monitoring). */
let countingAccountReads = false;
let accountReads = 0;
watchEveryClient((client) =>
  client.on("commandStarted", ({ commandName, command }) => {
    if (countingAccountReads && workOrigin() === "request" && command[commandName] === "accounts") accountReads += 1;
  }),
);

/** 10 × 99.99 = 999.90 per monthly cycle, from Jan 1, 2024. */
const seats = { startDate: "2024-01-01T00:00:00Z", products: [committed(10, 99.99)] };
const ids = (items: { id: string }[]) => items.map((item) => item.id);

describe("which contracts are billed", () => {
  it("bills a deleted contract no more, not even its cycles never invoiced", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(seats);
    const [january] = (await account.run("2024-02-01T00:00:00Z")).invoiceIds;
    expect((await account.deleteContract(contract.id)).status).toBe(200);
    // Feb, Mar and Apr have ended by May 1, but the contract is gone.
    expect(await account.run("2024-05-01T00:00:00Z")).toEqual({
      at: "2024-05-01T00:00:00.000Z",
      contractsBilled: 0,
      invoicesCreated: 0,
      invoiceIds: [],
      failures: [],
      hasMore: false,
    });
    // The invoice made before the deletion stays.
    expect(ids(await account.invoices(contract.id))).toEqual([january]);
  });

  it("bills Active, PendingTermination, Expired contracts; never InReview, Inactive, Error, Terminated", async () => {
    const account = await billingAccount(server);
    const statuses = ["InReview", "Active", "Inactive", "Expired", "Terminated", "PendingTermination", "Error"];
    const contracts = new Map<string, string>();
    const ending = { ...seats, endDate: "2024-12-01T00:00:00Z" };
    for (const status of statuses) contracts.set(status, (await account.contract({ ...ending, status })).id);
    const run = await account.run("2024-02-01T00:00:00Z");
    expect(run).toMatchObject({ contractsBilled: 3, invoicesCreated: 3, failures: [], hasMore: false });
    const billed = await account.allInvoices();
    expect(billed.map((invoice) => invoice.contractId).sort()).toEqual(
      ["Active", "Expired", "PendingTermination"].map((status) => contracts.get(status)).sort(),
    );
  });

  it("bills an Expired contract up to its endDate, and never one without an endDate", async () => {
    const account = await billingAccount(server);
    const ended = await account.contract({ ...seats, status: "Expired", endDate: "2024-03-01T00:00:00Z" });
    const openEnded = await account.contract({ ...seats, status: "Expired" });
    expect(await account.run("2024-06-01T00:00:00Z")).toMatchObject({ invoicesCreated: 2, failures: [] });
    // Jan and Feb, 999.90 each; nothing after the end, nothing at all for the one without an end.
    expect((await account.invoices(ended.id)).map((invoice) => invoice.amount)).toEqual([999.9, 999.9]);
    expect(await account.invoices(openEnded.id)).toEqual([]);
  });
});

describe("exactly once", () => {
  it("creates nothing when run twice with the same `at`", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(seats);
    await account.grant(1500);
    const first = await account.run("2024-03-01T00:00:00Z");
    expect(first.invoicesCreated).toBe(2);
    const before = await account.invoices(contract.id);
    const ledgerBefore = await account.ledger();

    // Nothing is due any more: the contract is not even looked at.
    expect(await account.run("2024-03-01T00:00:00Z")).toMatchObject({
      contractsBilled: 0,
      invoicesCreated: 0,
      invoiceIds: [],
      failures: [],
      hasMore: false,
    });
    expect(await account.invoices(contract.id)).toEqual(before);
    expect(await account.ledger()).toEqual(ledgerBefore);
  });

  it("5 concurrent runs (REST and tRPC) create each invoice once and debit credits once per invoice", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(seats);
    await account.grant(1500);
    const at = "2024-04-01T00:00:00Z";
    const client = account.trpc();
    const runs = await Promise.all([
      account.run(at),
      account.run(at),
      account.run(at),
      client.billing.run.mutate({ at }).then(({ run }) => run),
      client.billing.run.mutate({ at }).then(({ run }) => run),
    ]);

    const invoices = await account.invoices(contract.id);
    expect(invoices).toHaveLength(3); // Jan, Feb, Mar
    // Every invoice was reported created by exactly one run.
    const created = runs.flatMap((run) => run.invoiceIds);
    expect(created.sort()).toEqual(ids(invoices).sort());
    expect(runs.reduce((total, run) => total + run.invoicesCreated, 0)).toBe(3);

    // One debit per invoice, as if run once: 999.90, then 1500 − 999.90 = 500.10, then nothing.
    const usage = (await account.ledger()).filter((entry) => entry.type === "Usage");
    expect(usage.map((entry) => [entry.amount, entry.invoiceId])).toEqual([
      [-999.9, invoices[0].id],
      [-500.1, invoices[1].id],
    ]);
    expect(invoices.map((invoice) => invoice.revenueBreakdown.creditsUsed)).toEqual([999.9, 500.1, 0]);
    expect(await account.balance()).toBe(0);
  });

  it("a run at a later `at` adds only the cycles ended since", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(seats);
    const first = await account.run("2024-02-01T00:00:00Z");
    const [january] = await account.invoices(contract.id);
    expect(first.invoiceIds).toEqual([january.id]);

    const later = await account.run("2024-04-15T00:00:00Z");
    const invoices = await account.invoices(contract.id);
    expect(invoices.map((invoice) => invoice.billingCycle.startTime)).toEqual([
      "2024-01-01T00:00:00.000Z",
      "2024-02-01T00:00:00.000Z",
      "2024-03-01T00:00:00.000Z",
    ]);
    expect(later).toMatchObject({ invoicesCreated: 2, invoiceIds: ids(invoices.slice(1)) });
    expect(invoices[0]).toEqual(january);
  });

  it("answers with `at` in UTC; a run at the default `at` (now) bills what has ended by now", async () => {
    const account = await billingAccount(server);
    expect((await account.run("2024-02-01T01:00:00+01:00")).at).toBe("2024-02-01T00:00:00.000Z");
    const start = new Date(Date.now() - 40 * 86_400_000);
    const contract = await account.contract({
      startDate: start.toISOString(),
      products: [committed(1, 10, start.getUTCDate())],
    });
    const before = Date.now();
    const run = (await account.post("/billing-runs", {})).run;
    expect(Date.parse(run.at)).toBeGreaterThanOrEqual(before);
    // Started 40 days ago, monthly on its start day: exactly one cycle has ended.
    expect(run.invoiceIds).toEqual(ids(await account.invoices(contract.id)));
    expect(run.invoicesCreated).toBe(1);
  });
});

describe("a call's fixed reads", () => {
  it("with nothing due: one read of each work source, drafts and invoices to number together", async () => {
    const account = await billingAccount(server);
    await account.contract(seats);
    await account.run("2024-02-01T00:00:00Z");
    // The billing engine on a client of its own whose commands are counted: the service's, on the same database.
    const { run, commands } = await runOnOwnClient(server, account.accountId, "2024-02-01T00:00:00Z");
    expect(run.invoicesCreated).toBe(0);
    // Pending payments, failures to retry, recurring grants, expiries, unchecked schedules, the account's claims (read
    // by the look for drafts, kept for the first batch), drafts or invoices to number (one look: none, so neither is
    // read), due schedules.
    const sent = commands.filter(({ databaseName }) => databaseName === server.service.db.databaseName);
    expect(sent.map(({ commandName, command }) => `${commandName} ${command[commandName]}`)).toEqual([
      "find billingPendingPayments",
      "find billingFailures",
      "find credit_recurrences",
      "find credit_expiries",
      "find billingSchedules",
      "find billingClaims",
      "find invoices",
      "find billingSchedules",
    ]);
  });
});

describe("a call's account", () => {
  it("is read once by a call that bills: the call's read for its clock, carried to the run", async () => {
    const account = await billingAccount(server);
    await account.contract(seats);
    countingAccountReads = true;
    const run = await account.run("2024-02-01T00:00:00Z");
    countingAccountReads = false;
    // January, 999.90: its late-usage window and currency read from the account the call read first.
    expect(run.invoicesCreated).toBe(1);
    expect(accountReads).toBe(1);
  });
});

describe("operator CLI", () => {
  // A database of its own: the CLI bills every account in it.
  const own = useTestServer();

  const SERVER_DIR = fileURLToPath(new URL("..", import.meta.url));
  const billing = (...args: string[]) =>
    promisify(execFile)("npx", ["tsx", "src/cli.ts", ...args], {
      cwd: SERVER_DIR,
      // No grace period: these runs bill at the very end of the cycles (billing.grace.test.ts tests the grace).
      env: {
        ...process.env,
        MONGODB_URI: inject("mongodbUri"),
        MONGODB_DB: own.service.db.databaseName,
        BILLING_GRACE_PERIOD: "0",
      },
    });

  it("`billing run --at ISO` bills every account, once", async () => {
    const a = await billingAccount(own);
    const b = await billingAccount(own);
    const contractA = await a.contract({ startDate: "2025-01-01T00:00:00Z", products: [committed(1, 10)] });
    const contractB = await b.contract({ startDate: "2025-01-01T00:00:00Z", products: [committed(2, 10)] });

    const lines = (await billing("run", "--at", "2025-02-01T00:00:00Z")).stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.accountId).sort()).toEqual([a.accountId, b.accountId].sort());
    const lineOf = (accountId: string) => lines.find((line) => line.accountId === accountId);
    const [invoiceA] = await a.invoices(contractA.id);
    const [invoiceB] = await b.invoices(contractB.id);
    expect(lineOf(a.accountId)).toMatchObject({
      at: "2025-02-01T00:00:00.000Z",
      invoicesCreated: 1,
      invoiceIds: [invoiceA.id],
      failures: [],
    });
    expect(lineOf(b.accountId)).toMatchObject({ invoicesCreated: 1, invoiceIds: [invoiceB.id], failures: [] });
    // 1 × 10 and 2 × 10
    expect([invoiceA.amount, invoiceB.amount]).toEqual([10, 20]);

    const repeated = await billing("run", "--at", "2025-02-01T00:00:00Z");
    const again = repeated.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(again.reduce((total, line) => total + line.invoicesCreated, 0)).toBe(0);
    expect(repeated.stderr).toContain(`billed ${again.length} accounts up to 2025-02-01T00:00:00.000Z: 0 invoices`);
    await expect(billing("run", "--at", "not-a-date")).rejects.toMatchObject({ code: 2 });
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    await expect(billing("run", "--at", tomorrow)).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("must not be later than now"),
    });
  });
});
