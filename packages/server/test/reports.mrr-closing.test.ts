import { describe, expect, it } from "vitest";
import { partsOf, wholeClosing } from "../src/domain/reports/closing.js";
import { closeAccountMonths } from "../src/index.js";
import { billingAccount, monthly } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/**
 * MRR's closed months and closings in parts (issue 49, docs/decisions.md "Closed months"): a report reads a closed
 * month's closing and answers as the ledger did; a change recorded after the month closed (a contract entered late,
 * a termination recorded since) is taken from the ledger on read; a closing holds at most `rowsPerPart` rows a document
 * (2 here), is used only once every part is there, and two instances closing at once write each part once.
 */
const timing = { afterMonthEndMs: 3_650 * 86_400_000, recordMarginMs: 0, rowsPerPart: 2 };
const server = useTestServer({ reportClosing: timing });

/** Months closed up to `end` (every month ending by it; the tick closes them by real time). */
const closeMonthsEndingBy = async (end: string) => {
  timing.afterMonthEndMs = Math.max(0, Date.now() - Date.parse(end) - 60_000);
  await server.service.upkeep.tick();
};

const flat = (price: number) => ({ displayName: "Platform", scheduling: monthly(1), pricing: { type: "FLAT", price } });

/** The account's closings as `<report> <YYYY-MM> <parts stored>/<parts declared>`. */
async function closingsOf(accountId: string) {
  const docs = await server.service.db.collection("reportClosings").find({ accountId }).toArray();
  const byMonth = new Map<string, { stored: number; parts: number }>();
  for (const { report, month, parts } of docs) {
    const key = `${report} ${month.toISOString().slice(0, 7)}`;
    byMonth.set(key, { stored: (byMonth.get(key)?.stored ?? 0) + 1, parts });
  }
  return [...byMonth].map(([key, { stored, parts }]) => `${key} ${stored}/${parts}`).sort();
}

describe("closings in parts (pure)", () => {
  it("splits rows into parts of at most N, and uses a closing only when its parts are all there at one cut", () => {
    expect(partsOf([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(partsOf([1, 2], 2)).toEqual([[1, 2]]);
    expect(partsOf([], 2)).toEqual([[]]);
    expect(() => partsOf([1], 0)).toThrow();
    const cut = new Date("2026-02-09T00:00:00Z");
    const part = (index: number, parts = 3, at = cut) => ({ part: index, parts, cut: at });
    expect(wholeClosing([part(2), part(0), part(1)])?.map(({ part }) => part)).toEqual([0, 1, 2]);
    expect(wholeClosing([part(0), part(2)])).toBeUndefined();
    expect(wholeClosing([part(0), part(1), part(2, 3, new Date("2026-02-10T00:00:00Z"))])).toBeUndefined();
    expect(wholeClosing([])).toBeUndefined();
  });
});

describe("MRR's closed months", () => {
  it("answer as the ledger did, then take a contract entered late and a termination recorded since", async () => {
    const account = await billingAccount(server, {}, {});
    const post = (path: string, body: unknown) => account.post(path, body);
    const jan1 = "2026-01-01T00:00:00Z";
    // A 100.00, B 80.00 and C 40.00 a month from Jan 1; A upgraded to 150.00 from Feb 10, C terminated Feb 20.
    const a = await account.contract({ name: "A", startDate: jan1, products: [flat(100)] });
    const b = await account.contract({ name: "B", startDate: jan1, products: [flat(80)] });
    const c = await account.contract({ name: "C", startDate: jan1, products: [flat(40)] });
    await server.rest("PATCH", `/contracts/${a.id}`, {
      token: account.token,
      body: { products: [flat(150)], effectiveFrom: "2026-02-10T00:00:00Z" },
    });
    await post(`/contracts/${c.id}/terminate`, { at: "2026-02-20T00:00:00Z" });
    // Invoices issued Feb 1, Mar 1 and Apr 1, unpaid: April's receivables closing holds 3 due dates, 2 parts.
    for (const at of ["2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z"]) await account.run(at);

    const get = async (path: string) => {
      const response = await server.rest("GET", path, { token: account.token });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body;
    };
    const reports = async () => ({
      mrr: await get("/reports/mrr?from=2026-01-01T00:00:00Z&to=2026-05-01T00:00:00Z&currency=USD"),
      // Cut at both ends (the first and last months from the ledger), and running past the closed months.
      cut: await get("/reports/mrr?from=2026-01-15T00:00:00Z&to=2026-03-15T00:00:00Z&currency=USD"),
      later: await get("/reports/mrr?from=2026-02-01T00:00:00Z&to=2026-07-01T00:00:00Z&currency=USD"),
      receivables: await get("/reports/receivables?asOf=2026-05-15T00:00:00Z&currency=USD"),
    });
    const figures = (report: { opening: number; months: any[] }) => [
      report.opening,
      ...report.months.map((month) => [
        month.mrr,
        Object.fromEntries(
          Object.entries(month.movements).map(([kind, { amount, contracts }]: [string, any]) => [
            kind,
            [amount, ...contracts.map((move: any) => `${move.contractId} ${move.before}→${move.after}`)],
          ]),
        ),
      ]),
    ];
    const before = await reports();
    // January: A, B and C new, 220.00. February: A +50.00 (expansion), C −40.00 (churn): 230.00. March, April: same.
    const none = { new: [0], expansion: [0], contraction: [0], churn: [0], reactivation: [0] };
    expect(figures(before.mrr)).toEqual([
      0,
      [220, { ...none, new: [220, ...[`${a.id} 0→100`, `${b.id} 0→80`, `${c.id} 0→40`].sort()] }],
      [230, { ...none, expansion: [50, `${a.id} 100→150`], churn: [-40, `${c.id} 40→0`] }],
      [230, none],
      [230, none],
    ]);

    // January to April closed: January's three movements take 2 parts, April's receivables (3 due dates) 2.
    await closeMonthsEndingBy("2026-05-01T00:00:00Z");
    const closed = await closingsOf(account.accountId);
    expect(closed.filter((key) => key.startsWith("mrr"))).toEqual([
      "mrr 2026-01 2/2",
      "mrr 2026-02 1/1",
      "mrr 2026-03 1/1",
      "mrr 2026-04 1/1",
    ]);
    expect(closed).toContain("receivables 2026-04 2/2");
    expect(await reports()).toEqual(before);

    // Recorded after the months closed: D, 30.00 a month from Feb 1 (new in February); B terminated Apr 10 (churn;
    // it is invoiced up to Apr 1, so no earlier).
    const d = await account.contract({ name: "D", startDate: "2026-02-01T00:00:00Z", products: [flat(30)] });
    await post(`/contracts/${b.id}/terminate`, { at: "2026-04-10T00:00:00Z" });
    const after = await reports();
    // February 230.00 + 30.00 = 260.00; March 260.00; April 260.00 − 80.00 = 180.00. January as it was.
    expect(figures(after.mrr)).toEqual([
      0,
      figures(before.mrr)[1],
      [260, { ...none, new: [30, `${d.id} 0→30`], expansion: [50, `${a.id} 100→150`], churn: [-40, `${c.id} 40→0`] }],
      [260, none],
      [180, { ...none, churn: [-80, `${b.id} 80→0`] }],
    ]);
    // From Feb 1 on: opening January's 220.00, then 260, 260, 180 and the open months May and June.
    expect(figures(after.later).slice(0, 2)).toEqual([220, figures(after.mrr)[2]]);
    expect(after.later.months.map((month: { mrr: number }) => month.mrr)).toEqual([260, 260, 180, 180, 180]);

    // Every later month closed: the same answers again.
    await closeMonthsEndingBy(new Date().toISOString());
    expect((await closingsOf(account.accountId)).filter((key) => key.startsWith("mrr 2026-06"))).toEqual([
      "mrr 2026-06 1/1",
    ]);
    expect(await reports()).toEqual(after);
  });

  it("is written once, whole, when two instances close the same months at once", async () => {
    const account = await billingAccount(server);
    // Five contracts new in January: 10 + 20 + 30 + 40 + 50 = 150.00, three parts of at most 2 movements.
    for (const price of [10, 20, 30, 40, 50])
      await account.contract({ name: `P${price}`, startDate: "2026-01-01T00:00:00Z", products: [flat(price)] });
    const mrr = async () =>
      (
        await server.rest("GET", "/reports/mrr?from=2026-01-01T00:00:00Z&to=2026-04-01T00:00:00Z&currency=USD", {
          token: account.token,
        })
      ).body;
    const before = await mrr();
    expect(before.months.map((month: { mrr: number }) => month.mrr)).toEqual([150, 150, 150]);
    const scope = { repositories: server.service.repositories, accountId: account.accountId };
    // Months ending by Apr 1 close (3 of MRR), each instance summing at its own cut; the first part's decides.
    const now = new Date();
    const close = {
      afterMonthEndMs: now.getTime() - Date.parse("2026-04-01T00:00:00Z"),
      recordMarginMs: 0,
      rowsPerPart: 2,
    };
    await Promise.all([
      closeAccountMonths(scope, now, close),
      closeAccountMonths(scope, new Date(now.getTime() + 1), close),
    ]);
    expect(await closingsOf(account.accountId)).toEqual(["mrr 2026-01 3/3", "mrr 2026-02 1/1", "mrr 2026-03 1/1"]);
    const docs = await server.service.db
      .collection("reportClosings")
      .find({ accountId: account.accountId, report: "mrr" })
      .toArray();
    // Every part of a month summed at its first part's cut.
    const cutOf = new Map(docs.filter((doc) => doc.part === 0).map((doc) => [doc.month.getTime(), doc.cut.getTime()]));
    expect(docs.every((doc) => doc.cut.getTime() === cutOf.get(doc.month.getTime()))).toBe(true);
    expect(await mrr()).toEqual(before);

    // A pass stopped after January's first part (its other parts and the later months never written): January is
    // read from the ledger, the same; the next pass completes it (its first part lost, the rest written) and goes on.
    const closings = server.service.db.collection("reportClosings");
    await closings.deleteMany({
      accountId: account.accountId,
      $or: [{ part: { $gt: 0 } }, { month: { $gt: new Date("2026-01-01T00:00:00Z") } }],
    });
    expect(await closingsOf(account.accountId)).toEqual(["mrr 2026-01 1/3"]);
    expect(await mrr()).toEqual(before);
    await closeAccountMonths(scope, new Date(), close);
    expect(await closingsOf(account.accountId)).toEqual(["mrr 2026-01 3/3", "mrr 2026-02 1/1", "mrr 2026-03 1/1"]);
    expect(await mrr()).toEqual(before);
  });
});
