import { invoiceSimulationRequest, MAX_SIMULATION_UNITS, MICROS } from "@billing/shared";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { usageWindows } from "../src/domain/billing/invoice.js";
import { simulationWork } from "../src/domain/billing/simulation.js";
import { billedPlan } from "../src/domain/contracts/billed.js";
import { usageAccumulator } from "../src/domain/usage/aggregate.js";
import { meterReads, usageToRead } from "../src/domain/usage/reads.js";
import { termsInMicros } from "../src/presenters/contracts.js";
import { createRepositories } from "../src/repositories/index.js";
import { previewInvoice } from "../src/services/billing/preview.js";
import { simulateInvoices } from "../src/services/billing/simulate.js";
import { billingAccount } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { writesTo } from "./support/stored-writes.js";

/**
 * POST /invoices/simulate within its budget (issue 40, 4; docs/decisions.md, "What would they have paid"): its work
 * is counted before anything is read (tiers priced + days of usage read), each meter's usage is read once for all the
 * cycles and each cycle answered from it. Speed is the bench's (`pnpm bench`, section 15), not asserted here.
 */
const server = useTestServer();

/** `count` tiers: upTo 100, 200, …, the last open; unit prices 0.20, 0.19, … */
const tiers = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    upTo: index === count - 1 ? null : (index + 1) * 100,
    unitPrice: (20 - index) / 100,
  }));

/** `count` GRADUATED products of 20 tiers, each on a meter of its own, in one cycle of ten years. */
const graduatedProducts = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    displayName: `Product ${index}`,
    catalogProductId: `meter-${index}`,
    scheduling: { duration: { unit: "MONTH", value: 120 }, billingDay: 1 },
    pricing: { type: "GRADUATED", tiers: tiers(20) },
  }));

describe("POST /invoices/simulate: the work budget, checked before anything is read", () => {
  it("answers at MAX_SIMULATION_UNITS, refuses one day more with a 400 naming the limit, writes nothing", async () => {
    const account = await billingAccount(server);
    const simulate = (endDate: string) =>
      server.rest("POST", "/invoices/simulate", {
        token: account.token,
        body: {
          customerId: account.customerId,
          startDate: "2020-01-01T00:00:00Z",
          endDate,
          products: graduatedProducts(100),
        },
      });
    const writes = writesTo(server.service.db.databaseName);
    // One cycle (ten years, cut at endDate), 100 products: 100 × 20 tiers priced = 2,000, plus 100 meters × the days
    // read. 2020-01-01 to 2023-05-15 is 1,230 days: 2,000 + 123,000 = 125,000, the limit.
    expect(MAX_SIMULATION_UNITS).toBe(125_000);
    const atLimit = await simulate("2023-05-15T00:00:00Z");
    expect(atLimit.status).toBe(200);
    expect(atLimit.body.invoices).toHaveLength(1);
    expect(atLimit.body.simulatedTotal).toBe(0);
    // One day more: 2,000 + 123,100 = 125,100.
    const over = await simulate("2023-05-16T00:00:00Z");
    expect(over.status).toBe(400);
    expect(over.body.code).toBe("BAD_REQUEST");
    expect(over.body.message).toContain("125,100 units of work");
    expect(over.body.message).toContain("2,000 tiers priced");
    expect(over.body.message).toContain("123,100 days of usage read (100 meters × days)");
    expect(over.body.message).toContain("at most 125,000 units of work per simulation (MAX_SIMULATION_UNITS)");
    expect(over.body.issues).toEqual([
      { path: "endDate", message: "at most 125,000 units of work per simulation" },
      { path: "products", message: "at most 125,000 units of work per simulation" },
    ]);
    expect(writes.changedSince()).toEqual([]);
  });

  it("counts a contract's own terms too, naming contractId when no terms are given", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2020-01-01T00:00:00Z",
      endDate: "2024-01-01T00:00:00Z",
      products: graduatedProducts(100),
    });
    const refused = await server.rest("POST", "/invoices/simulate", {
      token: account.token,
      body: {
        customerId: account.customerId,
        contractId: contract.id,
        startDate: "2020-01-01T00:00:00Z",
        endDate: "2024-01-01T00:00:00Z",
      },
    });
    // One cycle cut at the contract's end: 2,000 tiers + 100 meters × 1,461 days (2020 is a leap year) = 148,100.
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain("148,100 units of work");
    expect(refused.body.issues.map((issue: { path: string }) => issue.path)).toEqual(["endDate", "contractId"]);
  });
});

describe("the time budget of a simulation and of a preview, as billing runs have theirs", () => {
  it("stops a simulation or a preview past its budget with a 409 (a budget of 0 ms: no clock needed)", async () => {
    const account = await billingAccount(server);
    const repositories = createRepositories(server.service.db);
    const products = graduatedProducts(2);
    const request = invoiceSimulationRequest.parse({
      customerId: account.customerId,
      startDate: "2020-01-01T00:00:00Z",
      endDate: "2021-01-01T00:00:00Z",
      products,
    });
    const spent = { timeBudgetMs: 0, unitsPerTurn: 1_000 };
    const simulated = simulateInvoices(repositories, account.accountId, request, { limits: spent });
    await expect(simulated).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("time budget of 0 s"),
      issues: [{ path: "endDate", message: "not simulated within 0 s" }],
    });
    // Within its budget, the same simulation answers.
    expect((await simulateInvoices(repositories, account.accountId, request)).invoices).toHaveLength(1);

    const contract = await account.contract({ startDate: "2020-01-01T00:00:00Z", products });
    const at = new Date("2020-02-01T00:00:00Z");
    const previewed = previewInvoice(
      repositories,
      account.accountId,
      contract.id,
      at,
      new AbortController().signal,
      spent,
    );
    await expect(previewed).rejects.toMatchObject({
      code: "CONFLICT",
      issues: [{ path: "contractId", message: "not previewed within 0 s" }],
    });
  });
});

describe("POST /invoices/simulate: money, each meter read once for every cycle", () => {
  it("prices each cycle from its own days of usage, exactly (worked out by hand)", async () => {
    const account = await billingAccount(server, { name: "Acme", aliases: ["acme-sim"] });
    await account.post("/meters", { key: "calls", eventName: "api.call", aggregation: "COUNT" }, 201);
    await account.post(
      "/meters",
      { key: "users", eventName: "login", aggregation: "UNIQUE_COUNT", valueProperty: "user" },
      201,
    );
    const at = (day: string, hour: number) => `${day}T${String(hour).padStart(2, "0")}:00:00Z`;
    const calls = (day: string, count: number) =>
      Array.from({ length: count }, (_, index) => ({
        ref: `call-${day}-${index}`,
        name: "api.call",
        customerAlias: "acme-sim",
        timestamp: at(day, index % 24),
      }));
    const login = (day: string, user: string) => ({
      ref: `login-${day}-${user}`,
      name: "login",
      customerAlias: "acme-sim",
      timestamp: at(day, 9),
      data: { user },
    });
    const events = [
      ...calls("2023-12-31", 7), // before the period
      ...calls("2024-01-10", 150),
      ...calls("2024-02-05", 80),
      ...calls("2024-02-10", 10), // the day's measurement (50) replaces these
      ...calls("2024-03-03", 120),
      ...calls("2024-03-20", 5), // after the period
      ...["a", "b", "c"].map((user) => login("2024-01-12", user)),
      login("2024-01-13", "a"),
      ...["a", "d"].map((user) => login("2024-02-14", user)),
      login("2024-03-05", "a"),
    ];
    await account.post("/events", { events });
    await account.measure("calls", "2024-02-10", 50);
    await account.measure("gb", "2024-01-15", 40);
    await account.measure("gb", "2024-02-20", 12);
    const products = [
      {
        displayName: "API calls",
        catalogProductId: "calls",
        pricing: {
          type: "GRADUATED",
          tiers: [
            { upTo: 100, unitPrice: 0.1 },
            { upTo: null, unitPrice: 0.05, flatPrice: 1 },
          ],
        },
      },
      { displayName: "Active users", catalogProductId: "users", pricing: { type: "PER_UNIT", price: 2 } },
      { displayName: "Storage", catalogProductId: "gb", pricing: { type: "PER_UNIT", price: 0.25 } },
      { displayName: "Platform", pricing: { type: "FLAT", price: 30 } },
    ];
    const answer = await server.rest("POST", "/invoices/simulate", {
      token: account.token,
      body: {
        customerId: account.customerId,
        startDate: "2024-01-01T00:00:00Z",
        endDate: "2024-03-16T00:00:00Z",
        products,
      },
    });
    expect(answer.status).toBe(200);
    // January: 150 calls: 100 × 0.10 + 50 × 0.05 + 1.00 (second tier reached) = 13.50; users a, b, c: 3 × 2.00 =
    //   6.00; 40 GB × 0.25 = 10.00; platform 30.00. 59.50.
    // February: 80 calls + 50 measured (the 10 events of Feb 10 replaced) = 130: 10.00 + 1.50 + 1.00 = 12.50;
    //   users a, d: 4.00 (a counted again: distinct within the cycle, not the period); 12 GB: 3.00; 30.00. 49.50.
    // March 1 to 15 (the period ends on the 16th: 15 of 31 days): 120 calls (not the 5 of Mar 20): 10.00 + 1.00 +
    //   1.00 = 12.00; user a: 2.00; no GB: 0.00; platform 30.00 × 15 / 31 = 14.516… → 14.52. 28.52.
    // 59.50 + 49.50 + 28.52 = 137.52; no finalized invoice: actualTotal 0.
    expect(answer.body).toMatchObject({ simulatedTotal: 137.52, actualTotal: 0, difference: 137.52 });
    const byName = (invoice: {
      lineItems: { name: string; quantity: number; revenueBreakdown: { total: number } }[];
    }) =>
      Object.fromEntries(invoice.lineItems.map((line) => [line.name, [line.quantity, line.revenueBreakdown.total]]));
    expect(answer.body.invoices.map((invoice: { amount: number }) => invoice.amount)).toEqual([59.5, 49.5, 28.52]);
    expect(answer.body.invoices.map(byName)).toEqual([
      { "API calls": [150, 13.5], "Active users": [3, 6], Storage: [40, 10], Platform: [1, 30] },
      { "API calls": [130, 12.5], "Active users": [2, 4], Storage: [12, 3], Platform: [1, 30] },
      { "API calls": [120, 12], "Active users": [1, 2], Storage: [0, 0], Platform: [1, 14.52] },
    ]);
  });
});

describe("simulation work and usage spans (pure)", () => {
  const contractOf = (products: unknown[], startDate: string, endDate: string) =>
    ({
      id: "0".repeat(24),
      customerId: "c",
      name: "Simulation",
      startDate,
      endDate,
      status: "Active",
      shouldProRateInvoices: true,
      autoRenewContract: false,
      renewals: 0,
      version: 1,
      currency: "USD",
      createdAt: startDate,
      updatedAt: startDate,
      ...termsInMicros({ products } as never),
    }) as Parameters<typeof billedPlan>[0];

  it("is linear: the issue's 100 GRADUATED products of 10 tiers over 23 monthly cycles", () => {
    const products = Array.from({ length: 100 }, (_, index) => ({
      displayName: `p${index}`,
      catalogProductId: `m${index}`,
      pricing: { type: "GRADUATED", tiers: tiers(10) },
    }));
    const work = (months: number, aliases?: number) => {
      const endDate = new Date(Date.UTC(2022, months, 1)).toISOString();
      const { contract, invoices } = billedPlan(
        contractOf(products, "2022-01-01T00:00:00.000Z", endDate),
        new Date(endDate),
      );
      const windows = invoices.map((cycle) => usageWindows(contract!, cycle));
      return simulationWork(invoices, usageToRead(windows.flat(2)), aliases);
    };
    // 23 × 100 × 10 = 23,000 tiers; 2022-01-01 to 2023-12-01 is 699 days, × 100 meters = 69,900.
    expect(work(23)).toEqual({ pricedTiers: 23_000, usageDays: 69_900, meters: 100, aliases: 1, units: 92_900 });
    // 2 cycles: 2,000 tiers, 59 days × 100 = 5,900.
    expect(work(2)).toEqual({ pricedTiers: 2_000, usageDays: 5_900, meters: 100, aliases: 1, units: 7_900 });
    // Each alias the customer's events are sent under has rollups of its own: 2 aliases read 11,800 days.
    expect(work(2, 2)).toEqual({ pricedTiers: 2_000, usageDays: 11_800, meters: 100, aliases: 2, units: 13_800 });
  });

  it("reads meters together, at most the days and meters a read allows", () => {
    const meters = Array.from({ length: 100 }, (_, index) => `m${index}`);
    const toRead = { fromDay: "2022-01-01", toDayExclusive: "2024-01-01", meters };
    // 730 days: 27 meters a read (19,710 days) under 20,000 days a read.
    expect(meterReads(toRead, { daysPerRead: 20_000, metersPerRead: 100 }).map((read) => read.length)).toEqual([
      27, 27, 27, 19,
    ]);
    // A customer with 10 aliases: 2 meters a read (14,600 days of rollups).
    expect(meterReads(toRead, { daysPerRead: 20_000, metersPerRead: 100 }, 10)).toHaveLength(50);
    // A period longer than a read allows still reads one meter at a time.
    expect(meterReads(toRead, { daysPerRead: 100, metersPerRead: 100 })).toHaveLength(100);
  });

  it("answers any range of a span read once as a read of that range alone would", () => {
    const days = ["2024-01-01", "2024-01-02", "2024-01-05", "2024-02-01", "2024-02-29", "2024-03-01"];
    const dayArb = fc.constantFrom(...days, "2023-12-31", "2024-01-03", "2024-03-02");
    const entryArb = fc.record({ day: fc.constantFrom(...days), value: fc.integer({ min: 0, max: 9 }) });
    fc.assert(
      fc.property(
        fc.constantFrom("SUM", "COUNT", "MAX", "LATEST", "UNIQUE_COUNT" as const),
        fc.array(entryArb, { maxLength: 20 }),
        fc.array(entryArb, { maxLength: 3 }),
        dayArb,
        dayArb,
        (aggregation, entries, measuredEntries, a, b) => {
          const [fromDay, toDayExclusive] = a <= b ? [a, b] : [b, a];
          const measured = new Map(
            aggregation === "UNIQUE_COUNT"
              ? []
              : measuredEntries.map(({ day, value }) => [day, BigInt(value) * MICROS] as const),
          );
          const readingOf = (value: number) =>
            aggregation === "UNIQUE_COUNT" ? `user-${value}` : BigInt(value) * MICROS;
          const sorted = [...entries].sort((x, y) => (x.day < y.day ? -1 : x.day > y.day ? 1 : 0));
          const whole = usageAccumulator(aggregation);
          for (const { day, value } of sorted) whole.add(day, readingOf(value));
          const alone = usageAccumulator(aggregation);
          for (const { day, value } of sorted)
            if (day >= fromDay && day < toDayExclusive) alone.add(day, readingOf(value));
          const measuredAlone = new Map([...measured].filter(([day]) => day >= fromDay && day < toDayExclusive));
          expect(whole.span(measured).over({ fromDay, toDayExclusive })).toEqual(alone.total(measuredAlone));
        },
      ),
    );
  });
});
