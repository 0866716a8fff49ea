import { describe, expect, it } from "vitest";
import { type BillingAccount, billingAccount, cyclesOf, day, monthly, usageProduct } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { testHooks } from "./support/hooks.js";

/**
 * Amendments of a contract's terms over REST (docs/decisions.md, "Contract amendments"): versions, the cycle an
 * amendment splits, the days that may still change, races, and a change left half-written by a crash.
 */
const control = testHooks();
const server = useTestServer({ hooks: control.hooks });

const patch = (account: BillingAccount, contractId: string, body: unknown) =>
  server.rest("PATCH", `/contracts/${contractId}`, { token: account.token, body });
const read = async (account: BillingAccount, contractId: string) =>
  (await server.rest("GET", `/contracts/${contractId}`, { token: account.token })).body.contract;

const platform = (price: number) => ({
  displayName: "Platform",
  scheduling: monthly(1),
  pricing: { type: "FLAT", price },
});
const calls = (price: number) => usageProduct("Calls", "calls", { type: "PER_UNIT", price });

/** A new account's contract from Apr 1 2024: Platform at 100.00 a month. */
async function platformContract() {
  const account = await billingAccount(server);
  const contract = await account.contract({ startDate: "2024-04-01T00:00:00Z", products: [platform(100)] });
  return { account, contract };
}

/** Each invoice's lines as [name, version, total]. */
const linesOf = (invoice: { lineItems: { name: string; version?: number; revenueBreakdown: { total: number } }[] }) =>
  invoice.lineItems.map((line) => [line.name, line.version, line.revenueBreakdown.total]);

describe("terms amended mid-cycle (PATCH products with effectiveFrom)", () => {
  it("splits the cycle at effectiveFrom, each part prorated by days whatever shouldProRateInvoices says", async () => {
    const account = await billingAccount(server);
    for (const shouldProRateInvoices of [false, true]) {
      const contract = await account.contract({
        startDate: "2024-04-01T00:00:00Z",
        products: [platform(100)],
        shouldProRateInvoices,
      });
      const amended = await patch(account, contract.id, {
        products: [platform(160)],
        effectiveFrom: "2024-04-11T00:00:00Z",
      });
      expect(amended.status).toBe(200);
      expect(amended.body.contract).toMatchObject({
        version: 2,
        termsEffectiveFrom: day("2024-04-11"),
        products: [{ displayName: "Platform", pricing: { type: "FLAT", price: 160 } }],
      });
      expect(await read(account, contract.id)).toMatchObject({ version: 2, products: [{ pricing: { price: 160 } }] });
      const invoices = await account.invoicesAsOf(contract.id, "2024-06-01T00:00:00Z");
      expect(cyclesOf(invoices)).toEqual([
        [day("2024-04-01"), day("2024-05-01")],
        [day("2024-05-01"), day("2024-06-01")],
      ]);
      // April (30 days): Apr 1..10 under version 1, 100 × 10 / 30 = 33.333… → 33.33; Apr 11..30 under version 2,
      // 160 × 20 / 30 = 106.666… → 106.67; 33.33 + 106.67 = 140.00. May: version 2 in full, 160.00.
      expect(linesOf(invoices[0])).toEqual([
        ["Platform", 1, 33.33],
        ["Platform", 2, 106.67],
      ]);
      expect(invoices.map((invoice) => invoice.amount)).toEqual([140, 160]);
      expect(linesOf(invoices[1])).toEqual([["Platform", 2, 160]]);
    }
  });

  it("splits metered usage at effectiveFrom: each day's usage priced once, by the version of its day", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({ startDate: "2024-04-01T00:00:00Z", products: [calls(1)] });
    await account.measure("calls", "2024-04-05", 10);
    await account.measure("calls", "2024-04-15", 20);
    expect(
      (await patch(account, contract.id, { products: [calls(2)], effectiveFrom: "2024-04-11T00:00:00Z" })).status,
    ).toBe(200);
    const [april] = await account.invoicesAsOf(contract.id, "2024-05-01T00:00:00Z");
    // Apr 5: 10 calls × 1.00 = 10.00 under version 1; Apr 15: 20 calls × 2.00 = 40.00 under version 2; 50.00.
    expect(linesOf(april)).toEqual([
      ["Calls", 1, 10],
      ["Calls", 2, 40],
    ]);
    expect(april.amount).toBe(50);
  });

  it("splits nothing when effectiveFrom is a cycle boundary", async () => {
    const { account, contract } = await platformContract();
    const amended = await patch(account, contract.id, {
      products: [platform(160)],
      effectiveFrom: "2024-05-01T00:00:00Z",
    });
    expect(amended.status).toBe(200);
    const invoices = await account.invoicesAsOf(contract.id, "2024-06-01T00:00:00Z");
    // April: version 1 in full, 100.00; May: version 2 in full, 160.00.
    expect(invoices.map(linesOf)).toEqual([[["Platform", 1, 100]], [["Platform", 2, 160]]]);
  });

  it("records the amendment in the history and keeps the fields that do not price", async () => {
    const { account, contract } = await platformContract();
    const amended = await patch(account, contract.id, {
      products: [platform(160)],
      name: "Plan B",
      effectiveFrom: "2024-04-11T00:00:00Z",
    });
    expect(amended.body.contract).toMatchObject({ name: "Plan B", version: 2, status: "Active" });
    const { history } = (await server.rest("GET", `/contracts/${contract.id}/history`, { token: account.token })).body;
    expect(history).toEqual([expect.objectContaining({ kind: "amendment", fields: ["name", "products"] })]);
  });
});

describe("a split cycle with pauses and commitments", () => {
  it("leaves paused days out of each part, with or without shouldProRateInvoices", async () => {
    const account = await billingAccount(server);
    for (const shouldProRateInvoices of [false, true]) {
      const contract = await account.contract({
        startDate: "2024-04-01T00:00:00Z",
        products: [platform(100)],
        shouldProRateInvoices,
      });
      for (const body of [
        { status: "Inactive", effectiveFrom: "2024-04-06T00:00:00Z" },
        { status: "Active", effectiveFrom: "2024-04-16T00:00:00Z" },
        { products: [platform(160)], effectiveFrom: "2024-04-11T00:00:00Z" },
      ]) {
        expect((await patch(account, contract.id, body)).status).toBe(200);
      }
      const [april] = await account.invoicesAsOf(contract.id, "2024-05-01T00:00:00Z");
      // April (30 days), paused Apr 6..15: version 1 bills Apr 1..10, 5 of them active, 100 × 5 / 30 = 16.666… →
      // 16.67; version 2 bills Apr 11..30, 15 of them active, 160 × 15 / 30 = 80.00; 16.67 + 80.00 = 96.67.
      expect(linesOf(april)).toEqual([
        ["Platform", 1, 16.67],
        ["Platform", 2, 80],
      ]);
      expect(april.amount).toBe(96.67);
    }
  });

  it("bills no part paused throughout, and the other part for its active days", async () => {
    const { account, contract } = await platformContract();
    for (const body of [
      { status: "Inactive", effectiveFrom: "2024-04-01T00:00:00Z" },
      { status: "Active", effectiveFrom: "2024-04-11T00:00:00Z" },
      { products: [platform(160)], effectiveFrom: "2024-04-11T00:00:00Z" },
    ]) {
      expect((await patch(account, contract.id, body)).status).toBe(200);
    }
    const [april] = await account.invoicesAsOf(contract.id, "2024-05-01T00:00:00Z");
    // Version 1's Apr 1..10 were all paused: no line. Version 2, Apr 11..30 active: 160 × 20 / 30 = 106.666… → 106.67.
    expect(linesOf(april)).toEqual([["Platform", 2, 106.67]]);
  });

  it("shares the committed units out to the parts by days: usage beyond a part's share is its overage", async () => {
    const account = await billingAccount(server);
    const committedCalls = (units: number, price: number, overagePrice: number) => ({
      displayName: "Calls",
      catalogProductId: "calls",
      scheduling: monthly(1),
      commitment: { units, price, overageStrategy: "CHARGE", overagePrice },
    });
    const contract = await account.contract({
      startDate: "2024-04-01T00:00:00Z",
      products: [committedCalls(1000, 0.1, 0.2)],
    });
    await account.measure("calls", "2024-04-05", 500);
    await account.measure("calls", "2024-04-20", 1500);
    const amended = await patch(account, contract.id, {
      products: [committedCalls(2000, 0.09, 0.15)],
      effectiveFrom: "2024-04-11T00:00:00Z",
    });
    expect(amended.status).toBe(200);
    const [april] = await account.invoicesAsOf(contract.id, "2024-05-01T00:00:00Z");
    // Version 1, Apr 1..10 (10 of 30 days): fee 1000 × 0.10 × 10 / 30 = 33.333… → 33.33; includes
    // 1000 × 10 / 30 = 333.333333 units (half up to a millionth); 500 used: 166.666667 over × 0.20 = 33.3333334 →
    // 33.33. Version 2, Apr 11..30 (20 of 30): fee 2000 × 0.09 × 20 / 30 = 120.00; includes 2000 × 20 / 30 =
    // 1333.333333 units; 1500 used: 166.666667 over × 0.15 = 25.00000005 → 25.00.
    // 33.33 + 33.33 + 120.00 + 25.00 = 211.66.
    expect(linesOf(april)).toEqual([
      ["Calls commitment", 1, 33.33],
      ["Calls usage", 1, 0],
      ["Calls overage", 1, 33.33],
      ["Calls commitment", 2, 120],
      ["Calls usage", 2, 0],
      ["Calls overage", 2, 25],
    ]);
    const quantities = april.lineItems.map((line: { quantity: number }) => line.quantity);
    expect(quantities).toEqual([1000, 500, 166.666667, 2000, 1500, 166.666667]);
    expect(april.revenueBreakdown).toMatchObject({ subtotal: 153.33, overage: 58.33, total: 211.66 });
  });
});

describe("what an amendment may not do", () => {
  it("refuses a day an invoice covers (409 naming effectiveFrom); the next uninvoiced day is accepted", async () => {
    const { account, contract } = await platformContract();
    await account.run("2024-05-01T00:00:00Z");
    const invoiced = await patch(account, contract.id, {
      products: [platform(160)],
      effectiveFrom: "2024-04-20T00:00:00Z",
    });
    expect(invoiced.status).toBe(409);
    expect(invoiced.body.issues).toEqual([expect.objectContaining({ path: "effectiveFrom" })]);
    expect((await read(account, contract.id)).version).toBe(1);
    const next = await patch(account, contract.id, {
      products: [platform(160)],
      effectiveFrom: "2024-05-01T00:00:00Z",
    });
    expect(next.status).toBe(200);
  });

  it("needs effectiveFrom with new terms, not before startDate, nor with status (400 naming the field)", async () => {
    const { account, contract } = await platformContract();
    const cases: [unknown, string][] = [
      [{ products: [platform(160)] }, "effectiveFrom"],
      [{ products: [platform(160)], effectiveFrom: "2024-03-31T00:00:00Z" }, "effectiveFrom"],
      [{ products: [platform(160)], status: "Inactive", effectiveFrom: "2024-04-11T00:00:00Z" }, "status"],
    ];
    for (const [body, field] of cases) {
      const refused = await patch(account, contract.id, body);
      expect(refused.status).toBe(400);
      expect(refused.body.issues).toEqual([expect.objectContaining({ path: field })]);
    }
    expect((await read(account, contract.id)).version).toBe(1);
  });

  it("refuses to price a meter another contract prices over those days, under any of its versions (409)", async () => {
    const account = await billingAccount(server);
    const metered = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [calls(1)] });
    // The metered contract stops pricing calls from Mar 1: its version 1 still prices them Jan 1..Feb 29.
    expect(
      (await patch(account, metered.id, { products: [platform(10)], effectiveFrom: "2024-03-01T00:00:00Z" })).status,
    ).toBe(200);
    const other = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [platform(100)] });
    const early = await patch(account, other.id, { products: [calls(2)], effectiveFrom: "2024-02-01T00:00:00Z" });
    expect(early.status).toBe(409);
    expect(early.body.issues).toEqual([expect.objectContaining({ path: "products.0.catalogProductId" })]);
    const later = await patch(account, other.id, { products: [calls(2)], effectiveFrom: "2024-03-01T00:00:00Z" });
    expect(later.status).toBe(200);
  });
});

describe("changes racing or stopped part-way", () => {
  it("two amendments racing: one wins, the other 409, and one version is added", async () => {
    const { account, contract } = await platformContract();
    // The first has read the contract (version 1) and waits before logging its change; the second goes through.
    const paused = control.pauseOnce("contracts.log", contract.id);
    const first = patch(account, contract.id, { products: [platform(120)], effectiveFrom: "2024-04-11T00:00:00Z" });
    await paused.reached;
    const second = await patch(account, contract.id, {
      products: [platform(160)],
      effectiveFrom: "2024-04-11T00:00:00Z",
    });
    expect(second.status).toBe(200);
    paused.release();
    expect((await first).status).toBe(409);
    expect(await read(account, contract.id)).toMatchObject({ version: 2, products: [{ pricing: { price: 160 } }] });
  });

  it("a run that read the contract before an amendment leaves a draft, priced again when finalized", async () => {
    const { account, contract } = await platformContract();
    // The run has priced April under version 1 and waits before storing it; the amendment finds nothing invoiced.
    const paused = control.pauseOnce("invoices.insert", contract.id);
    const run = account.run("2024-05-01T00:00:00Z");
    await paused.reached;
    const body = { products: [platform(160)], effectiveFrom: "2024-04-11T00:00:00Z" };
    expect((await patch(account, contract.id, body)).status).toBe(200);
    paused.release();
    await run;
    // Stored as priced (version 1 only, 100.00) but not finalized: the contract changed since the run read it.
    expect(await account.invoices(contract.id)).toEqual([expect.objectContaining({ status: "DRAFT", amount: 100 })]);
    const [april] = await account.invoicesAsOf(contract.id, "2024-05-01T00:00:00Z");
    // Finalized by the next run, priced from the amended contract: 33.33 + 106.67 = 140.00 (see the first test).
    expect(april).toMatchObject({ status: "FINALIZED", amount: 140 });
    expect(linesOf(april)).toEqual([
      ["Platform", 1, 33.33],
      ["Platform", 2, 106.67],
    ]);
  });

  it("an amendment that checked before a run stored its invoice checks again, and is refused (409)", async () => {
    const { account, contract } = await platformContract();
    // The amendment has found nothing invoiced and waits; the run bills April under version 1 meanwhile.
    const paused = control.pauseOnce("contracts.announce", contract.id);
    const body = { products: [platform(160)], effectiveFrom: "2024-04-11T00:00:00Z" };
    const amendment = patch(account, contract.id, body);
    await paused.reached;
    await account.run("2024-05-01T00:00:00Z");
    paused.release();
    const refused = await amendment;
    expect(refused.status).toBe(409);
    expect(refused.body.issues).toEqual([expect.objectContaining({ path: "effectiveFrom" })]);
    // Every April day billed under version 1, the version in force on every April day: 100.00.
    expect(await read(account, contract.id)).toMatchObject({ version: 1 });
    expect(await account.invoices(contract.id)).toEqual([
      expect.objectContaining({ status: "FINALIZED", amount: 100 }),
    ]);
  });

  it("a draft is not finalized while an amendment of its contract is under way", async () => {
    const { account, contract } = await platformContract();
    // The amendment has passed both its checks (nothing invoiced) and waits before logging itself.
    const paused = control.pauseOnce("contracts.log", contract.id);
    const body = { products: [platform(160)], effectiveFrom: "2024-04-11T00:00:00Z" };
    const amendment = patch(account, contract.id, body);
    await paused.reached;
    // Runs meanwhile store April priced under version 1 (100.00) and leave it a draft; so does a request to finalize.
    await account.run("2024-05-01T00:00:00Z");
    const [draft] = await account.invoicesAsOf(contract.id, "2024-05-01T00:00:00Z");
    expect(draft).toMatchObject({ status: "DRAFT", amount: 100 });
    const finalize = await server.rest("POST", `/invoices/${draft.id}/finalize`, { token: account.token });
    expect(finalize.status).toBe(409);
    paused.release();
    expect((await amendment).status).toBe(200);
    await account.run("2024-05-01T00:00:00Z");
    // Finalized once the amendment is in: 33.33 + 106.67 = 140.00 (see the first test).
    expect(await account.invoices(contract.id)).toEqual([
      expect.objectContaining({ id: draft.id, status: "FINALIZED", amount: 140 }),
    ]);
  });

  it("a change logged but not applied (a crash between the two writes) is completed by the next read", async () => {
    const { account, contract } = await platformContract();
    control.fail("contracts.applyChange", contract.id, 1);
    const stopped = await patch(account, contract.id, {
      products: [platform(160)],
      effectiveFrom: "2024-04-11T00:00:00Z",
    });
    expect(stopped.status).toBe(500);
    expect(await read(account, contract.id)).toMatchObject({ version: 2, products: [{ pricing: { price: 160 } }] });
    control.fail("contracts.applyChange", contract.id, 1);
    const pause = await patch(account, contract.id, { status: "Inactive", effectiveFrom: "2024-05-01T00:00:00Z" });
    expect(pause.status).toBe(500);
    // Not 409 forever: the next change completes the pause, then takes the place after it.
    const resumed = await patch(account, contract.id, { status: "Active", effectiveFrom: "2024-05-11T00:00:00Z" });
    expect(resumed.status).toBe(200);
    expect(resumed.body.contract).toMatchObject({
      status: "Active",
      version: 2,
      inactivePeriods: [{ from: day("2024-05-01"), to: day("2024-05-11") }],
    });
  });

  it("a run completes a change a crash left half-written, and bills by it", async () => {
    const { account, contract } = await platformContract();
    control.fail("contracts.applyChange", contract.id, 1);
    const body = { products: [platform(160)], effectiveFrom: "2024-04-11T00:00:00Z" };
    expect((await patch(account, contract.id, body)).status).toBe(500);
    await account.run("2024-05-01T00:00:00Z");
    // As amended: 33.33 + 106.67 = 140.00 (see the first test).
    expect((await account.invoices(contract.id)).map((invoice) => invoice.amount)).toEqual([140]);
  });
});
