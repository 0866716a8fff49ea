import { describe, expect, it } from "vitest";
import { billingAccount, committed } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/**
 * The reports' closed months (issue 49, docs/decisions.md "Closed months"): once the upkeep worker has closed a
 * month, a report reads its closing instead of the ledger's entries, and must answer exactly as before; postings
 * recorded after a month closed (a payment dated in it, a void undoing its revenue) are added on read. Every figure
 * below is computed by hand.
 */

// Months close this long after their end (real time): the test moves it to close May and earlier, then every month.
const timing = { afterMonthEndMs: 3_650 * 86_400_000, recordMarginMs: 0 };
const server = useTestServer({ reportClosing: timing });

/** Months closed up to `end` (every month ending by it; the tick closes them by real time). */
const closeMonthsEndingBy = async (end: string) => {
  timing.afterMonthEndMs = Math.max(0, Date.now() - Date.parse(end) - 60_000);
  await server.service.upkeep.tick();
};

describe("closed months", () => {
  it("answer as the ledger did, then add a payment and a void recorded after their months closed", async () => {
    // A monthly 100.00 from Mar 1, 2026, due at issue: runs on Apr 1, May 1 and Jun 1 issue March, April and May.
    const account = await billingAccount(server, { netTermsDays: 0 });
    const contract = await account.contract({ startDate: "2026-03-01T00:00:00Z", products: [committed(1, 100)] });
    for (const at of ["2026-04-01T00:00:00Z", "2026-05-01T00:00:00Z", "2026-06-01T00:00:00Z"]) await account.run(at);
    const [march, april, may] = await account.invoices(contract.id);
    const pay = (invoice: { id: string }, amount: number, date: string) =>
      account.post(`/invoices/${invoice.id}/payments`, { amount, date }, 201);
    // March paid 100.00 on Apr 10; April 60.00 on May 10.
    await pay(march, 100, "2026-04-10T00:00:00Z");
    await pay(april, 60, "2026-05-10T00:00:00Z");

    const get = async (path: string) => {
      const response = await server.rest("GET", path, { token: account.token });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      // The open cycles are priced as of the moment of the call (the same cycles every time): when is left out.
      if (response.body.unbilled) delete response.body.unbilled.asOf;
      return response.body;
    };
    const reports = async () => ({
      june15: await get("/reports/receivables?asOf=2026-06-15T00:00:00Z&currency=USD"),
      may15: await get("/reports/receivables?asOf=2026-05-15T00:00:00Z&currency=USD"),
      may25: await get("/reports/receivables?asOf=2026-05-25T00:00:00Z&currency=USD"),
      collected: await get("/reports/collections?from=2026-04-01T00:00:00Z&to=2026-07-01T00:00:00Z&currency=USD"),
      collectedMay: await get("/reports/collections?from=2026-05-01T00:00:00Z&to=2026-06-01T00:00:00Z&currency=USD"),
      revenue: await get(
        "/reports/revenue?from=2026-03-01T00:00:00Z&to=2026-07-01T00:00:00Z&interval=MONTH&currency=USD",
      ),
      // 100.00 of MRR from March on: untouched by payments and the void (test/reports.mrr-closing.test.ts for more).
      mrr: await get("/reports/mrr?from=2026-03-01T00:00:00Z&to=2026-07-01T00:00:00Z&currency=USD"),
      // Cut at both ends: half of March and of June are read from the ledger, April and May from their closings.
      revenueCut: await get(
        "/reports/revenue?from=2026-03-15T00:00:00Z&to=2026-06-15T00:00:00Z&interval=MONTH&currency=USD",
      ),
    });
    const aging = (report: { total: Record<string, number> }) => report.total;
    const months = (report: { periods: { start: string; billed: number; recognized: number; deferred: number }[] }) =>
      report.periods.map(({ start, billed, recognized, deferred }) => [
        start.slice(0, 10),
        billed,
        recognized,
        deferred,
      ]);

    const before = await reports();
    // Jun 15: April's 40.00 left, due May 1, 45 days past due; May's 100.00, due Jun 1, 14 days.
    expect(aging(before.june15)).toEqual({ current: 0, "1-30": 100, "31-60": 40, "61-90": 0, "90+": 0, total: 140 });
    // May 15: April's 100.00, 14 days past due (its 60.00 was paid May 10: 40.00); May 25 the same 40.00.
    expect(aging(before.may15)).toMatchObject({ "1-30": 40, total: 40 });
    expect(aging(before.may25)).toMatchObject({ "1-30": 40, total: 40 });
    expect([before.collected.collected, before.collectedMay.collected]).toEqual([160, 60]);
    // Each month recognizes its 100.00 evenly; each invoice is billed on the next month's first day.
    expect(months(before.revenue)).toEqual([
      ["2026-03-01", 0, 100, 0],
      ["2026-04-01", 100, 100, 0],
      ["2026-05-01", 100, 100, 0],
      ["2026-06-01", 100, 0, 0],
    ]);
    // March 15 – 31: after 14 of 31 days round(10000 × 14 / 31 = 4516.13) = 45.16, so 100.00 − 45.16 = 54.84.
    expect(months(before.revenueCut)).toEqual([
      ["2026-03-15", 0, 54.84, 0],
      ["2026-04-01", 100, 100, 0],
      ["2026-05-01", 100, 100, 0],
      ["2026-06-01", 100, 0, 0],
    ]);

    expect(before.mrr.months.map((month: { mrr: number }) => month.mrr)).toEqual([100, 100, 100, 100]);
    // April and May closed (each report from its first entry's month: April; MRR from the contract's start, March);
    // every report answers the same.
    await closeMonthsEndingBy("2026-06-01T00:00:00Z");
    const closings = server.service.db.collection("reportClosings");
    const closed = async () =>
      (await closings.find({ accountId: account.accountId }).toArray()).map(
        ({ report, month }) => `${report} ${month.toISOString().slice(0, 7)}`,
      );
    expect((await closed()).sort()).toEqual([
      "collections 2026-04",
      "collections 2026-05",
      "mrr 2026-03",
      "mrr 2026-04",
      "mrr 2026-05",
      "receivables 2026-04",
      "receivables 2026-05",
      "revenue 2026-04",
      "revenue 2026-05",
    ]);
    expect(await reports()).toEqual(before);

    // Recorded after May closed: April's last 40.00, paid May 20; May's invoice voided (today: a voided invoice
    // recognizes and bills nothing, so its mirror undoes May's revenue and June's billing).
    await pay(april, 40, "2026-05-20T00:00:00Z");
    await account.post(`/invoices/${may.id}/void`, {});
    const after = await reports();
    // Jun 15: April paid; May's 100.00 still owed then (voided today). May 15: before the payment, 40.00; May 25: 0.
    expect(aging(after.june15)).toEqual({ current: 0, "1-30": 100, "31-60": 0, "61-90": 0, "90+": 0, total: 100 });
    expect(aging(after.may15)).toMatchObject({ "1-30": 40, total: 40 });
    expect(aging(after.may25)).toMatchObject({ total: 0 });
    // Collected: 160.00 + 40.00 = 200.00, May 60.00 + 40.00 = 100.00.
    expect([after.collected.collected, after.collectedMay.collected]).toEqual([200, 100]);
    expect(months(after.revenue)).toEqual([
      ["2026-03-01", 0, 100, 0],
      ["2026-04-01", 100, 100, 0],
      ["2026-05-01", 100, 0, 0],
      ["2026-06-01", 0, 0, 0],
    ]);
    expect(months(after.revenueCut)).toEqual([
      ["2026-03-15", 0, 54.84, 0],
      ["2026-04-01", 100, 100, 0],
      ["2026-05-01", 100, 0, 0],
      ["2026-06-01", 0, 0, 0],
    ]);

    // Every later month closed: June's receivables chain on May's and take the payment recorded since May's cut;
    // the answers stay the same. A second tick closes nothing more.
    await closeMonthsEndingBy(new Date().toISOString());
    const all = await closed();
    expect(all).toContain("receivables 2026-06");
    expect(all).toContain("revenue 2026-06");
    expect(await reports()).toEqual(after);
    await server.service.upkeep.tick();
    expect((await closed()).length).toBe(all.length);
  });
});
