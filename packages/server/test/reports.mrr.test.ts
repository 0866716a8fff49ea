import { describe, expect, it } from "vitest";
import { contractMrrBefore, type MrrCurve, movementOf } from "../src/domain/reports/mrr.js";
import { expectError } from "./support/assertions.js";
import { billingAccount, everyMonths, monthly, usageProduct } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/**
 * MRR and its movements (issue 49), from the MRR ledger. Every figure is computed by hand (docs/decisions.md, "MRR").
 */
const server = useTestServer();

const flat = (displayName: string, price: number) => ({
  displayName,
  scheduling: monthly(1),
  pricing: { type: "FLAT", price },
});

describe("MRR of one contract (pure)", () => {
  it("classifies a move by its before and after, and counts a cycle's usage from the end of that cycle", () => {
    expect(movementOf(0, 5, false)).toBe("new");
    expect(movementOf(0, 5, true)).toBe("reactivation");
    expect(movementOf(5, 8, true)).toBe("expansion");
    expect(movementOf(8, 5, true)).toBe("contraction");
    expect(movementOf(5, 0, true)).toBe("churn");
    expect(movementOf(5, 5, true)).toBeUndefined();
    const curve: MrrCurve = {
      contractId: "c",
      customerId: "k",
      seq: 0,
      points: [
        { from: new Date("2026-01-01T00:00:00Z"), micros: 10_000_000, live: true },
        { from: new Date("2026-03-01T00:00:00Z"), micros: 0, live: false },
      ],
    };
    const usage = [{ contractId: "c", cycleEnd: new Date("2026-02-01T00:00:00Z"), micros: 7_000_000 }];
    // Just before Jan 1 nothing; at Jan's end (Feb 1) 10.00 + the January cycle's 7.00 (ended Feb 1) = 17.00;
    // at Mar 31 the contract is no longer live: 0, usage included.
    expect(contractMrrBefore(curve, usage, new Date("2026-01-01T00:00:00Z")).total).toBe(0);
    expect(contractMrrBefore(curve, usage, new Date("2026-01-31T00:00:00Z")).total).toBe(10_000_000);
    expect(contractMrrBefore(curve, usage, new Date("2026-02-01T00:00:00Z")).total).toBe(17_000_000);
    expect(contractMrrBefore(curve, usage, new Date("2026-04-01T00:00:00Z")).total).toBe(0);
  });
});

describe("GET /reports/mrr", () => {
  it("reports three months with a new contract, an upgrade, a downgrade, a churn, usage and a pause", async () => {
    const account = await billingAccount(server);
    const post = (path: string, body: unknown) => server.rest("POST", path, { token: account.token, body });
    const patch = (id: string, body: unknown) =>
      server.rest("PATCH", `/contracts/${id}`, { token: account.token, body });
    const jan1 = "2026-01-01T00:00:00Z";
    const a = await account.contract({ name: "A", startDate: jan1, products: [flat("Platform", 100)] });
    const b = await account.contract({ name: "B", startDate: jan1, products: [flat("Platform", 80)] });
    const c = await account.contract({ name: "C", startDate: jan1, products: [flat("Platform", 40)] });
    const e = await account.contract({
      name: "E",
      startDate: jan1,
      products: [usageProduct("API", "calls", { type: "PER_UNIT", price: 0.1 })],
    });
    // January's usage of E: 300 calls × 0.10 = 30.00, invoiced by the run of Feb 1 (cycle Jan 1 – Feb 1).
    await account.measure("calls", "2026-01-10", 300);
    await account.run("2026-02-01T00:00:00Z");
    // D: an annual 1,200.00 prepaid from Feb 15, a cycle of 12 months: 1,200.00 / 12 = 100.00 a month.
    const d = await account.contract({
      name: "D",
      startDate: "2026-02-15T00:00:00Z",
      products: [{ ...flat("Annual", 1200), scheduling: everyMonths(12, 15), paymentTerm: "Prepayment" }],
    });
    // A upgraded 100.00 → 150.00 from Feb 10; C terminated on Feb 20; B downgraded 80.00 → 50.00 from Mar 5.
    expect(
      (await patch(a.id, { products: [flat("Platform", 150)], effectiveFrom: "2026-02-10T00:00:00Z" })).status,
    ).toBe(200);
    expect((await post(`/contracts/${c.id}/terminate`, { at: "2026-02-20T00:00:00Z" })).status).toBe(200);
    expect(
      (await patch(b.id, { products: [flat("Platform", 50)], effectiveFrom: "2026-03-05T00:00:00Z" })).status,
    ).toBe(200);
    const response = await server.rest(
      "GET",
      "/reports/mrr?from=2026-01-01T00:00:00Z&to=2026-04-01T00:00:00Z&currency=USD",
      { token: account.token },
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const report = response.body;
    const ids = (movement: { contracts: { contractId: string }[] }) => movement.contracts.map((m) => m.contractId);
    // Opening (just before Jan 1): nothing started. January's end: A 100 + B 80 + C 40 recurring = 220.00, and E's
    // January cycle (ended Feb 1, the month's end) 30.00 of usage: 250.00, all new; ARR 12 × 250 = 3,000.00.
    expect(report.opening).toBe(0);
    const [january, february, march] = report.months;
    expect(january).toMatchObject({ start: "2026-01-01T00:00:00.000Z", end: "2026-02-01T00:00:00.000Z" });
    expect([january.recurring, january.usage, january.mrr, january.arr]).toEqual([220, 30, 250, 3000]);
    expect(january.movements.new.amount).toBe(250);
    expect(ids(january.movements.new).sort()).toEqual([a.id, b.id, c.id, e.id].sort());
    // February's end: A 150 + B 80 + D 100 = 330.00 recurring (C ended Feb 20); E's trailing invoiced cycle is still
    // January's (no run since), 30.00: 360.00. Movements: new D +100, expansion A +50, churn C −40: 250 + 110 = 360.
    expect([february.recurring, february.usage, february.mrr, february.arr]).toEqual([330, 30, 360, 4320]);
    expect(february.movements.new).toEqual({
      amount: 100,
      contracts: [{ contractId: d.id, customerId: account.customerId, before: 0, after: 100 }],
    });
    expect(february.movements.expansion).toEqual({
      amount: 50,
      contracts: [{ contractId: a.id, customerId: account.customerId, before: 100, after: 150 }],
    });
    expect(february.movements.churn).toEqual({
      amount: -40,
      contracts: [{ contractId: c.id, customerId: account.customerId, before: 40, after: 0 }],
    });
    expect(february.movements.contraction.contracts).toEqual([]);
    // March's end: A 150 + B 50 + D 100 = 300.00 + E 30.00 = 330.00; contraction B −30: 360 − 30 = 330.
    expect([march.recurring, march.usage, march.mrr]).toEqual([300, 30, 330]);
    expect(march.movements.contraction).toEqual({
      amount: -30,
      contracts: [{ contractId: b.id, customerId: account.customerId, before: 80, after: 50 }],
    });
    expect([march.movements.new, march.movements.expansion, march.movements.churn].map(ids)).toEqual([[], [], []]);

    // A pause of B from Apr 1 to May 1 churns it in April and reactivates it in May (it had MRR before).
    const pause = await patch(b.id, { status: "Inactive", effectiveFrom: "2026-04-01T00:00:00Z" });
    expect(pause.status, JSON.stringify(pause.body)).toBe(200);
    const resume = await patch(b.id, { status: "Active", effectiveFrom: "2026-05-01T00:00:00Z" });
    expect(resume.status, JSON.stringify(resume.body)).toBe(200);
    const later = await account.trpc().reports.mrr.query({
      from: "2026-04-01T00:00:00Z",
      to: "2026-06-01T00:00:00Z",
      currency: "USD",
    });
    // Opening at Apr 1: 330.00 (March's end, as the first report said). April's end (May 1): B paused, −50.00; E's
    // January cycle ended Feb 1, more than 62 days before May 1 (89 days): its usage no longer counts, −30.00; so
    // 330 − 80 = 250.00. May: B back, +50.00 (a reactivation: it had MRR before): 300.00.
    expect(later.opening).toBe(330);
    expect(later.months[0]!.movements.churn.amount).toBe(-80);
    expect(ids(later.months[0]!.movements.churn).sort()).toEqual([b.id, e.id].sort());
    expect(later.months[1]!.movements.reactivation).toEqual({
      amount: 50,
      contracts: [{ contractId: b.id, customerId: account.customerId, before: 0, after: 50 }],
    });
    expect(later.months.map((month: { mrr: number }) => month.mrr)).toEqual([250, 300]);
  });

  it("counts an auto-renewing contract past its end only when it renews there, as reads show its status", async () => {
    const account = await billingAccount(server);
    const mrrOf = async (from: string, to: string) =>
      (await account.trpc().reports.mrr.query({ from, to, currency: "USD" })).months.map((m: { mrr: number }) => m.mrr);
    // Entered today, its term (Jan and Feb 2025) long over: it renews only at an end it lives through, so it expired
    // on Mar 1, 2025 (it reads Expired): 100.00 at January's and February's ends, 0 at March's (a churn of −100).
    const expired = await account.contract({
      name: "Entered after its end",
      startDate: "2025-01-01T00:00:00Z",
      endDate: "2025-03-01T00:00:00Z",
      products: [flat("Platform", 100)],
    });
    expect(expired).toMatchObject({ autoRenewContract: true, status: "Expired" });
    expect(await mrrOf("2025-01-01T00:00:00Z", "2025-04-01T00:00:00Z")).toEqual([100, 100, 0]);
    // From this month's first day to the next's, entered before its end: it renews there (and reads Active after
    // it), so its 40.00 counts at the end of the two months after its first term.
    const month = (offset: number) => {
      const today = new Date();
      return new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + offset, 1)).toISOString();
    };
    const renewing = await account.contract({
      name: "Renews",
      startDate: month(0),
      endDate: month(1),
      products: [flat("Platform", 40)],
    });
    expect(renewing.status).toBe("Active");
    expect(await mrrOf(month(1), month(3))).toEqual([40, 40]);
  });

  it("reports one customer's MRR by its id or externalId; no customer of the account is 404", async () => {
    const account = await billingAccount(server);
    const other = (
      await server.rest("POST", "/customers", { token: account.token, body: { name: "Other", externalId: "other-1" } })
    ).body.customer.id as string;
    const jan1 = "2026-01-01T00:00:00Z";
    const mine = await account.contract({ startDate: jan1, products: [flat("Platform", 100)] });
    const theirs = await account.contract({ customerId: other, startDate: jan1, products: [flat("Platform", 40)] });
    const mrr = async (customer?: string) => {
      const query = `from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z&currency=USD`;
      const filter = customer === undefined ? "" : `&customerId=${customer}`;
      return server.rest("GET", `/reports/mrr?${query}${filter}`, { token: account.token });
    };
    // January's end: the account 100.00 + 40.00 = 140.00; the first customer 100.00 alone, the other 40.00 alone
    // (named by its externalId), each with its own contract as new.
    expect((await mrr()).body.months[0].mrr).toBe(140);
    const first = (await mrr(account.customerId)).body.months[0];
    expect([first.mrr, first.arr, first.movements.new.contracts.map((m: any) => m.contractId)]).toEqual([
      100,
      1200,
      [mine.id],
    ]);
    const second = (await mrr("other-1")).body.months[0];
    expect([second.mrr, second.movements.new.contracts.map((m: any) => m.contractId)]).toEqual([40, [theirs.id]]);
    expectError(await mrr("0123456789abcdef01234567"), 404, "NOT_FOUND");
  });

  it("refuses a window ending before it starts, with 400 naming the field; another currency has nothing", async () => {
    const account = await billingAccount(server);
    const response = await server.rest(
      "GET",
      "/reports/mrr?from=2026-03-01T00:00:00Z&to=2026-02-01T00:00:00Z&currency=USD",
      { token: account.token },
    );
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.issues[0].path).toBe("to");
    await account.contract({ startDate: "2026-01-01T00:00:00Z", products: [flat("Platform", 100)] });
    const euros = await server.rest(
      "GET",
      "/reports/mrr?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z&currency=EUR",
      {
        token: account.token,
      },
    );
    expect(euros.status).toBe(200);
    expect(euros.body.months[0].mrr).toBe(0);
  });
});
