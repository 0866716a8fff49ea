import { describe, expect, it } from "vitest";
import { stepReportLedgerBackfill } from "../src/services/invoices/report-ledger-backfill.js";
import { billingAccount, day, monthly, usageProduct } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/**
 * The report ledgers' backfill (issue 49; docs/decisions.md, "The report ledgers' backfill"): an invoice stored
 * before the receivables, revenue and MRR ledgers existed has no entries; the upkeep worker's backfill replays its
 * change log into them, once. Every figure below is computed by hand.
 */
const server = useTestServer();

describe("the report ledgers' backfill", () => {
  it("counts an invoice stored without its ledger entries once, and a second pass adds nothing", async () => {
    const account = await billingAccount(server, { aliases: ["backfill-co"], netTermsDays: 0 });
    await account.post("/meters", { key: "tokens", eventName: "tokens", aggregation: "SUM", valueProperty: "n" }, 201);
    const contract = await account.contract({
      startDate: day("2026-01-01"),
      products: [
        { displayName: "Support", scheduling: monthly(1), pricing: { type: "FLAT", price: 31 } },
        usageProduct("Tokens", "tokens", { type: "PER_UNIT", price: 0.1 }),
      ],
    });
    const event = { ref: "b-1", name: "tokens", timestamp: "2026-01-10T10:00:00Z", customerAlias: "backfill-co" };
    const sent = await server.rest("POST", "/events", {
      token: account.token,
      body: { events: [{ ...event, data: { n: "100" } }] },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    // January: FLAT 31.00 + 100 tokens × 0.10 = 10.00 → 41.00, issued Feb 1 and due then (0 days' terms); 11.00
    // paid on Feb 5.
    await account.run("2026-02-01T00:00:00Z");
    const [january] = await account.invoices(contract.id);
    expect(january.amount).toBe(41);
    await account.post(`/invoices/${january.id}/payments`, { amount: 11, date: "2026-02-05T00:00:00Z" }, 201);

    const get = async (path: string) => {
      const response = await server.rest("GET", path, { token: account.token });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body;
    };
    const figures = async () => {
      const revenue = await get("/reports/revenue?from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z&currency=USD");
      const january10 = await get(
        "/reports/revenue?from=2026-01-10T00:00:00Z&to=2026-01-11T00:00:00Z&interval=DAY&currency=USD",
      );
      const receivables = await get("/reports/receivables?asOf=2026-03-01T00:00:00Z&currency=USD");
      const mrr = await get("/reports/mrr?from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z&currency=USD");
      const collections = await get(
        "/reports/collections?from=2026-02-01T00:00:00Z&to=2026-03-01T00:00:00Z&currency=USD",
      );
      return {
        revenue: revenue.periods.map((period: { billed: number; recognized: number }) => [
          period.billed,
          period.recognized,
        ]),
        january10: january10.periods[0].recognized,
        owed: receivables.total["1-30"],
        mrr: mrr.months.map((month: { mrr: number }) => month.mrr),
        collected: collections.collected,
      };
    };
    // Revenue: January recognizes 31.00 evenly and the 10.00 of usage on Jan 10; billed on Feb 1. Jan 10 alone: 1.00
    // of flat + 10.00 of usage. Receivables as of Mar 1: 28 days past due, 41.00 − 11.00 = 30.00. MRR: 31.00 + the
    // usage of the trailing cycle (January's, ended at January's end) 10.00 = 41.00, at January's end and February's.
    // Collected in February: the 11.00 paid Feb 5.
    const counted = {
      revenue: [
        [0, 41],
        [41, 0],
      ],
      january10: 11,
      owed: 30,
      mrr: [41, 41],
      collected: 11,
    };
    expect(await figures()).toEqual(counted);

    // As a database from before the ledgers holds it: the invoice and its change log, none of its entries.
    const db = server.service.db;
    const mine = { accountId: account.accountId };
    const ledgers = [
      { ledger: db.collection("receivableEntries"), filter: mine },
      { ledger: db.collection("revenueSchedules"), filter: mine },
      { ledger: db.collection<{ _id: string }>("mrrLedger"), filter: { _id: `${january.id}:usage` } },
      { ledger: db.collection("collectionEntries"), filter: mine },
    ] as const;
    const entries = async () =>
      Promise.all(ledgers.map(({ ledger, filter }) => ledger.countDocuments(filter as never)));
    // A finalization and a payment move what is owed (2); the finalization's schedule (1); January's usage (1); the
    // payment collected (1).
    expect(await entries()).toEqual([2, 1, 1, 1]);
    for (const { ledger, filter } of ledgers) await ledger.deleteMany(filter as never);
    await db.collection("reportLedger_migrations").deleteMany({});
    expect(await figures()).toEqual({
      revenue: [
        [0, 0],
        [0, 0],
      ],
      january10: 0,
      owed: 0,
      mrr: [31, 31],
      collected: 0,
    });

    // The backfill, step by step to its end (the upkeep worker takes one a tick): counted once.
    const backfill = async () => {
      let steps = 0;
      while ((await stepReportLedgerBackfill(server.service.repositories, 50)) > 0) steps += 1;
      return steps;
    };
    expect(await backfill()).toBeGreaterThanOrEqual(1);
    expect(await db.collection("reportLedger_migrations").findOne({})).toMatchObject({ done: true });
    expect(await entries()).toEqual([2, 1, 1, 1]);
    expect(await figures()).toEqual(counted);

    // Done is done: a step changes nothing. A second pass from the start writes nothing again.
    expect(await stepReportLedgerBackfill(server.service.repositories)).toBe(0);
    await db.collection("reportLedger_migrations").deleteMany({});
    await backfill();
    expect(await entries()).toEqual([2, 1, 1, 1]);
    expect(await figures()).toEqual(counted);
  });
});
