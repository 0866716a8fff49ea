import { describe, expect, it } from "vitest";
import { type BillingAccount, billingAccount, day, monthly } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { testHooks } from "./support/hooks.js";

/**
 * The price catalog (issue 43; docs/decisions.md, "Plans"): plans with versions, contracts that follow them with
 * overrides, a price change rolled out by a migration, and a migration resumed after a crash.
 */
const control = testHooks();
const server = useTestServer({ hooks: control.hooks });

// The account's billing time (its test clock) is Apr 15, 2024: "today" for NEXT_CYCLE and IMMEDIATELY.
const APR_15 = "2024-04-15T00:00:00.000Z";

/** Plan Pro's terms: Platform FLAT `flat` a month + Tokens PER_UNIT `perToken`, monthly on the 1st, in arrears. */
const proTerms = (flat: number, perToken: number) => [
  { displayName: "Platform", scheduling: monthly(1), pricing: { type: "FLAT", price: flat } },
  {
    displayName: "Tokens",
    catalogProductId: "tokens",
    scheduling: monthly(1),
    pricing: { type: "PER_UNIT", price: perToken },
  },
];

const rest = (account: BillingAccount, method: string, path: string, body?: unknown) =>
  server.rest(method, path, { token: account.token, ...(body !== undefined && { body }) });

async function clockedAccount() {
  return billingAccount(server, {}, { testClock: { at: APR_15 } });
}

/** Plan `key` v1 (49 + 0.002) on a new account. */
async function proPlan(account: BillingAccount, key = "pro") {
  const created = await rest(account, "POST", "/plans", {
    key,
    name: "Pro",
    currency: "USD",
    products: proTerms(49, 0.002),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.plan;
}

const advanceTo = async (account: BillingAccount, to: string) => {
  for (;;) {
    const { status, body } = await rest(account, "POST", "/test-clock/advance", { to });
    expect(status, JSON.stringify(body)).toBe(200);
    if (!body.advance.hasMore) return;
  }
};

/** Each invoice's lines as [name, version, total]. */
const linesOf = (invoice: { lineItems: { name: string; version?: number; revenueBreakdown: { total: number } }[] }) =>
  invoice.lineItems.map((line) => [line.name, line.version, line.revenueBreakdown.total]);

/** Waits for the migration to complete, driving the worker (no sleeping: each tick runs a batch now). */
async function completed(account: BillingAccount, planId: string, migrationId: string) {
  for (let tick = 0; tick < 20; tick += 1) {
    const { body } = await rest(account, "GET", `/plans/${planId}/migrations/${migrationId}`);
    if (body.migration.status === "COMPLETED") return body.migration;
    await server.service.migrations.tick();
  }
  throw new Error("the migration did not complete in 20 ticks");
}

describe("plans and versions", () => {
  it("creates a plan at version 1, reads it by id or key, adds versions and archives it", async () => {
    const account = await billingAccount(server);
    const plan = await proPlan(account);
    expect(plan).toMatchObject({ key: "pro", version: 1, status: "ACTIVE", currency: "USD" });
    expect(plan.products).toEqual(proTerms(49, 0.002));
    const v2 = await rest(account, "POST", "/plans/pro/versions", { products: proTerms(59, 0.002) });
    expect(v2.status).toBe(201);
    expect(v2.body.plan).toMatchObject({ id: plan.id, version: 2, products: proTerms(59, 0.002) });
    const read = (await rest(account, "GET", `/plans/${plan.id}`)).body.plan;
    expect(read.versions.map(({ version, contracts }: any) => [version, contracts])).toEqual([
      [1, 0],
      [2, 0],
    ]);
    // Version 1 never changes.
    const v1 = (await rest(account, "GET", "/plans/pro/versions/1")).body.version;
    expect(v1).toMatchObject({ planId: plan.id, key: "pro", version: 1, products: proTerms(49, 0.002) });
    // A version of no one is named as an id is: 404.
    expect((await rest(account, "GET", "/plans/pro/versions/3")).status).toBe(404);
    const archived = await rest(account, "POST", "/plans/pro/archive");
    expect(archived.body.plan).toMatchObject({ status: "ARCHIVED", archivedAt: expect.any(String) });
    const list = (await rest(account, "GET", "/plans?status=ARCHIVED")).body;
    expect(list.plans.map((p: any) => p.key)).toEqual(["pro"]);
    expect((await rest(account, "GET", "/plans?status=ACTIVE")).body.total).toBe(0);
    const taking = await rest(account, "POST", "/contracts", {
      customerId: account.customerId,
      name: "Late",
      startDate: "2024-04-01T00:00:00Z",
      planId: "pro",
    });
    expect(taking.status).toBe(409);
  });

  it("refuses a taken key, bad keys and products and plan together (400 naming the field)", async () => {
    const account = await billingAccount(server);
    await proPlan(account);
    const again = await rest(account, "POST", "/plans", { key: "pro", name: "P", currency: "USD", products: [] });
    expect(again.status).toBe(409);
    const badKey = await rest(account, "POST", "/plans", { key: "Pro!", name: "P", currency: "USD", products: [] });
    expect(badKey.status).toBe(400);
    expect(JSON.stringify(badKey.body)).toContain("key");
    const both = await rest(account, "POST", "/contracts", {
      customerId: account.customerId,
      name: "Both",
      startDate: "2024-04-01T00:00:00Z",
      planId: "pro",
      products: proTerms(1, 1),
    });
    expect(both.status).toBe(400);
    expect(both.body.issues).toEqual([expect.objectContaining({ path: "products" })]);
    const unknown = await rest(account, "POST", "/contracts", {
      customerId: account.customerId,
      name: "Unknown",
      startDate: "2024-04-01T00:00:00Z",
      planId: "pro",
      overrides: [{ product: "Seats", discountPercent: 10 }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.issues).toEqual([expect.objectContaining({ path: "overrides.0.product" })]);
  });

  it("decides a key race by its unique insert: of concurrent creations exactly one wins", async () => {
    const account = await billingAccount(server);
    const body = { key: "race", name: "Race", currency: "USD", products: proTerms(49, 0.002) };
    const answers = await Promise.all(Array.from({ length: 6 }, () => rest(account, "POST", "/plans", body)));
    expect(answers.map(({ status }) => status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const list = (await rest(account, "GET", "/plans")).body;
    expect(list.plans.map((p: any) => [p.key, p.version])).toEqual([["race", 1]]);
  });
});

describe("contracts from a plan", () => {
  it("bills exactly what a contract created with the version's products bills", async () => {
    const account = await clockedAccount();
    await proPlan(account);
    const fromPlan = await account.contract({ startDate: "2024-04-01T00:00:00Z", planId: "pro" });
    expect(fromPlan).toMatchObject({ plan: { key: "pro", version: 1 }, products: proTerms(49, 0.002) });
    const other = await account.newCustomer({ name: "Custom Co" });
    const custom = (
      await account.post(
        "/contracts",
        { customerId: other, name: "Custom", startDate: "2024-04-01T00:00:00Z", products: proTerms(49, 0.002) },
        201,
      )
    ).contract;
    expect(custom.plan).toBeUndefined();
    await account.measure("tokens", "2024-04-05", 10_000);
    await account.measure("tokens", "2024-04-05", 10_000, other);
    await advanceTo(account, "2024-05-01T00:00:00Z");
    const [planInvoice] = await account.invoices(fromPlan.id);
    const [customInvoice] = await account.invoices(custom.id);
    // April: Platform 49.00 + Tokens 10,000 × 0.002 = 20.00; 69.00 both.
    expect(linesOf(planInvoice)).toEqual([
      ["Platform", 1, 49],
      ["Tokens", 1, 20],
    ]);
    expect(linesOf(customInvoice)).toEqual(linesOf(planInvoice));
    expect(planInvoice.amount).toBe(69);
  });
});

describe("a price change rolled out (Pro v1 49 + 0.002 → v2 59 + 0.002)", () => {
  it("NEXT_CYCLE at Apr 15: A and B move from May, B keeps its 0.0015, C (custom) is untouched", async () => {
    const account = await clockedAccount();
    // No worker delivers here: each event's delivery stays listed, pending.
    const { endpoint } = await account.post("/webhook-endpoints", { url: "https://hooks.example.com/plans" }, 201);
    const plan = await proPlan(account);
    const a = await account.contract({ startDate: "2024-04-01T00:00:00Z", planId: "pro" });
    const customerB = await account.newCustomer({ name: "B Co" });
    const b = (
      await account.post(
        "/contracts",
        {
          customerId: customerB,
          name: "B",
          startDate: "2024-04-01T00:00:00Z",
          planId: "pro",
          overrides: [{ product: "Tokens", pricing: { type: "PER_UNIT", price: 0.0015 } }],
        },
        201,
      )
    ).contract;
    expect(b.products[1].pricing).toEqual({ type: "PER_UNIT", price: 0.0015 });
    expect(b.overrides).toEqual([{ product: "Tokens", pricing: { type: "PER_UNIT", price: 0.0015 } }]);
    const customerC = await account.newCustomer({ name: "C Co" });
    const c = (
      await account.post(
        "/contracts",
        { customerId: customerC, name: "C", startDate: "2024-04-01T00:00:00Z", products: proTerms(49, 0.002) },
        201,
      )
    ).contract;
    expect((await rest(account, "POST", "/plans/pro/versions", { products: proTerms(59, 0.002) })).status).toBe(201);
    const started = await rest(account, "POST", "/plans/pro/migrations", {
      fromVersions: [1],
      toVersion: 2,
      effective: "NEXT_CYCLE",
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body.migration).toMatchObject({ total: 2, at: APR_15 });
    const migration = await completed(account, plan.id, started.body.migration.id);
    expect(migration).toMatchObject({ status: "COMPLETED", total: 2, done: 2, failed: [], failedTotal: 0 });

    const movedA = (await rest(account, "GET", `/contracts/${a.id}`)).body.contract;
    expect(movedA).toMatchObject({ plan: { key: "pro", version: 2 }, termsEffectiveFrom: day("2024-05-01") });
    const movedB = (await rest(account, "GET", `/contracts/${b.id}`)).body.contract;
    expect(movedB.products).toEqual([proTerms(59, 0.002)[0], proTerms(59, 0.0015)[1]]);
    expect((await rest(account, "GET", `/contracts/${c.id}`)).body.contract).toMatchObject({ version: 1 });
    const subscribers = (await rest(account, "GET", "/plans/pro/contracts?version=2")).body;
    expect(subscribers.contracts.map((x: any) => x.id)).toEqual([a.id, b.id]);
    expect((await rest(account, "GET", "/plans/pro/contracts?version=1")).body.total).toBe(0);
    const counts = (await rest(account, "GET", "/plans/pro")).body.plan.versions;
    expect(counts.map(({ contracts }: any) => contracts)).toEqual([0, 2]);
    const { deliveries } = (await rest(account, "GET", `/webhook-endpoints/${endpoint.id}/deliveries?limit=100`)).body;
    const events = deliveries.map(({ eventType }: { eventType: string }) => eventType);
    for (const type of ["plan.created", "plan.version_created"])
      expect(events.filter((e: string) => e === type)).toHaveLength(1);
    expect(events.filter((type: string) => type === "contract.migrated")).toHaveLength(2);
    const history = (await rest(account, "GET", `/contracts/${a.id}/history`)).body.history;
    expect(history).toEqual([
      expect.objectContaining({ kind: "amendment", fields: ["plan", "products"], by: `migration:${migration.id}` }),
    ]);

    // Usage is measured once the clock has reached its day.
    for (const customer of [account.customerId, customerB, customerC])
      await account.measure("tokens", "2024-04-05", 10_000, customer);
    await advanceTo(account, "2024-05-11T00:00:00Z");
    for (const customer of [account.customerId, customerB, customerC])
      await account.measure("tokens", "2024-05-10", 20_000, customer);
    await advanceTo(account, "2024-06-01T00:00:00Z");
    const [aprilA, mayA] = await account.invoices(a.id);
    const [aprilB, mayB] = await account.invoices(b.id);
    const [aprilC, mayC] = await account.invoices(c.id);
    // A. April (v1): 49.00 + 10,000 × 0.002 = 20.00 → 69.00. May (v2): 59.00 + 20,000 × 0.002 = 40.00 → 99.00.
    expect([linesOf(aprilA), aprilA.amount]).toEqual([
      [
        ["Platform", 1, 49],
        ["Tokens", 1, 20],
      ],
      69,
    ]);
    expect([linesOf(mayA), mayA.amount]).toEqual([
      [
        ["Platform", 2, 59],
        ["Tokens", 2, 40],
      ],
      99,
    ]);
    // B keeps its override. April: 49.00 + 10,000 × 0.0015 = 15.00 → 64.00. May: 59.00 + 20,000 × 0.0015 = 30.00
    // → 89.00.
    expect([aprilB.amount, mayB.amount]).toEqual([64, 89]);
    expect(linesOf(mayB)).toEqual([
      ["Platform", 2, 59],
      ["Tokens", 2, 30],
    ]);
    // C (custom) untouched. April: 49.00 + 20.00 → 69.00. May: 49.00 + 40.00 → 89.00.
    expect([aprilC.amount, mayC.amount]).toEqual([69, 89]);
  });

  it("IMMEDIATELY on Apr 15 splits April at the 15th exactly as an amendment does", async () => {
    const account = await clockedAccount();
    const plan = await proPlan(account);
    const migrated = await account.contract({ startDate: "2024-04-01T00:00:00Z", planId: "pro" });
    const other = await account.newCustomer({ name: "Amended Co" });
    const amended = (
      await account.post(
        "/contracts",
        { customerId: other, name: "Amended", startDate: "2024-04-01T00:00:00Z", products: proTerms(49, 0.002) },
        201,
      )
    ).contract;
    await rest(account, "POST", "/plans/pro/versions", { products: proTerms(59, 0.002) });
    const started = await rest(account, "POST", `/plans/${plan.id}/migrations`, {
      fromVersions: "ALL",
      toVersion: 2,
      effective: "IMMEDIATELY",
    });
    expect(started.status).toBe(202);
    await completed(account, plan.id, started.body.migration.id);
    const patched = await rest(account, "PATCH", `/contracts/${amended.id}`, {
      products: proTerms(59, 0.002),
      effectiveFrom: APR_15,
    });
    expect(patched.status).toBe(200);
    for (const customer of [account.customerId, other]) await account.measure("tokens", "2024-04-05", 10_000, customer);
    await advanceTo(account, "2024-04-21T00:00:00Z");
    for (const customer of [account.customerId, other]) await account.measure("tokens", "2024-04-20", 5_000, customer);
    await advanceTo(account, "2024-05-01T00:00:00Z");
    const [april] = await account.invoices(migrated.id);
    const [amendedApril] = await account.invoices(amended.id);
    // Apr 1..14 under v1: Platform 49 × 14/30 = 22.866… → 22.87; Tokens Apr 5: 10,000 × 0.002 = 20.00.
    // Apr 15..30 under v2: Platform 59 × 16/30 = 31.466… → 31.47; Tokens Apr 20: 5,000 × 0.002 = 10.00.
    // 22.87 + 20.00 + 31.47 + 10.00 = 84.34.
    expect(linesOf(april)).toEqual([
      ["Platform", 1, 22.87],
      ["Tokens", 1, 20],
      ["Platform", 2, 31.47],
      ["Tokens", 2, 10],
    ]);
    expect(april.amount).toBe(84.34);
    expect(linesOf(amendedApril)).toEqual(linesOf(april));
  });

  it("lists a contract whose days are already invoiced in `failed` with its reason; the others move", async () => {
    const account = await clockedAccount();
    const plan = await proPlan(account);
    const invoiced = await account.contract({ startDate: "2024-03-01T00:00:00Z", planId: "pro" });
    const other = await account.newCustomer({ name: "Fresh Co" });
    const fresh = (
      await account.post(
        "/contracts",
        { customerId: other, name: "Fresh", startDate: "2024-04-10T00:00:00Z", planId: "pro" },
        201,
      )
    ).contract;
    await rest(account, "POST", "/plans/pro/versions", { products: proTerms(59, 0.002) });
    // March is invoiced (the clock's advance to Apr 16 bills it): a move from Mar 20 is refused for that contract.
    await advanceTo(account, "2024-04-16T00:00:00Z");
    expect((await account.invoices(invoiced.id)).length).toBe(1);
    const started = await rest(account, "POST", `/plans/${plan.id}/migrations`, {
      fromVersions: [1],
      toVersion: 2,
      effective: { at: "2024-03-20T00:00:00Z" },
    });
    const migration = await completed(account, plan.id, started.body.migration.id);
    expect(migration).toMatchObject({ done: 1, failedTotal: 1 });
    expect(migration.failed).toEqual([
      { contractId: invoiced.id, reason: expect.stringContaining("invoiced up to 2024-04-01") },
    ]);
    // The fresh contract starts Apr 10, after Mar 20: it takes v2 whole.
    expect((await rest(account, "GET", `/contracts/${fresh.id}`)).body.contract).toMatchObject({
      plan: { version: 2 },
      termsEffectiveFrom: day("2024-04-10"),
    });
  });
});

describe("a migration stopped mid-way", () => {
  it("is resumed by the worker and moves nobody twice, run again or not", async () => {
    const account = await clockedAccount();
    const plan = await proPlan(account);
    const customers = [account.customerId];
    for (let n = 1; n < 5; n += 1) customers.push(await account.newCustomer({ name: `Customer ${n}` }));
    const contracts = [];
    for (const customerId of customers) {
      contracts.push(
        (
          await account.post(
            "/contracts",
            { customerId, name: "Pro", startDate: "2024-04-01T00:00:00Z", planId: "pro" },
            201,
          )
        ).contract,
      );
    }
    await rest(account, "POST", "/plans/pro/versions", { products: proTerms(59, 0.002) });
    // The third contract's move: claimed, then the call dies before it records the outcome (a crash).
    control.fail("planMigrations.settle", contracts[2].id, 1);
    const started = await rest(account, "POST", "/plans/pro/migrations", {
      fromVersions: [1],
      toVersion: 2,
      effective: "NEXT_CYCLE",
    });
    expect(started.status).toBe(202);
    expect(started.body.migration.status).toBe("RUNNING");
    // The same batch run again, twice (the second, asked while the first runs, follows it), then until done.
    await Promise.all([server.service.migrations.tick(), server.service.migrations.tick()]);
    const migration = await completed(account, plan.id, started.body.migration.id);
    expect(migration).toMatchObject({ status: "COMPLETED", total: 5, done: 5, failedTotal: 0 });
    // The same migration asked again finds nobody left on v1.
    const again = await rest(account, "POST", "/plans/pro/migrations", {
      fromVersions: [1],
      toVersion: 2,
      effective: "NEXT_CYCLE",
    });
    expect(again.body.migration).toMatchObject({ status: "COMPLETED", total: 0, done: 0 });
    for (const contract of contracts) {
      const read = (await rest(account, "GET", `/contracts/${contract.id}`)).body.contract;
      // Each moved once: terms version 2 (one amendment), one amendment in its history.
      expect(read).toMatchObject({ version: 2, plan: { version: 2 } });
      const history = (await rest(account, "GET", `/contracts/${contract.id}/history`)).body.history;
      expect(history.filter((entry: any) => entry.kind === "amendment")).toHaveLength(1);
    }
  });
});

describe("a plan's contract changed on its own", () => {
  it("moves alone with planVersion (overrides kept or dropped) and turns custom with products", async () => {
    const account = await clockedAccount();
    await proPlan(account);
    const contract = await account.contract({
      startDate: "2024-04-01T00:00:00Z",
      planId: "pro",
      overrides: [{ product: "Tokens", discountPercent: 25 }],
    });
    // 25 % off 0.002 = 0.0015.
    expect(contract.products[1].pricing).toEqual({ type: "PER_UNIT", price: 0.0015 });
    await rest(account, "POST", "/plans/pro/versions", { products: [proTerms(59, 0.002)[0]] });
    const path = `/contracts/${contract.id}`;
    const dropped = await rest(account, "PATCH", path, { planVersion: 2, effectiveFrom: "2024-05-01T00:00:00Z" });
    expect(dropped.status).toBe(409);
    expect(dropped.body.issues).toEqual([expect.objectContaining({ path: "dropOverrides" })]);
    const moved = await rest(account, "PATCH", path, {
      planVersion: 2,
      dropOverrides: true,
      effectiveFrom: "2024-05-01T00:00:00Z",
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.contract).toMatchObject({ plan: { version: 2 }, products: [proTerms(59, 0.002)[0]] });
    expect(moved.body.contract.overrides).toBeUndefined();
    const custom = await rest(account, "PATCH", path, {
      products: proTerms(10, 0.001),
      effectiveFrom: "2024-06-01T00:00:00Z",
    });
    expect(custom.status).toBe(200);
    expect(custom.body.contract.plan).toBeUndefined();
    const history = (await rest(account, "GET", `${path}/history`)).body.history;
    expect(history.map((entry: any) => entry.fields)).toEqual([
      ["plan", "products"],
      ["plan", "products"],
    ]);
    expect((await rest(account, "GET", "/plans/pro/contracts")).body.total).toBe(0);
  });
});

describe("a price change simulated across the plan", () => {
  it("prices each contract's April under its own terms and under candidate v2, overrides kept", async () => {
    const account = await billingAccount(server, {}, { testClock: { at: "2024-05-15T00:00:00Z" } });
    await proPlan(account);
    const a = await account.contract({ startDate: "2024-04-01T00:00:00Z", planId: "pro" });
    const customerB = await account.newCustomer({ name: "B Co" });
    const overrides = [{ product: "Tokens", pricing: { type: "PER_UNIT", price: 0.0015 } }];
    const b = (
      await account.post(
        "/contracts",
        { customerId: customerB, name: "B", startDate: "2024-04-01T00:00:00Z", planId: "pro", overrides },
        201,
      )
    ).contract;
    for (const customer of [account.customerId, customerB])
      await account.measure("tokens", "2024-04-05", 10_000, customer);
    const { status, body } = await rest(account, "POST", "/plans/pro/simulate", {
      products: proTerms(59, 0.002),
      from: "2024-04-01T00:00:00Z",
      to: "2024-05-01T00:00:00Z",
    });
    expect(status, JSON.stringify(body)).toBe(200);
    // A: 49 + 10,000 × 0.002 = 69.00 today, 59 + 20.00 = 79.00 under v2.
    // B: 49 + 10,000 × 0.0015 = 64.00 today, 59 + 15.00 = 74.00 under v2 (its override kept).
    expect(body.simulation).toEqual({
      from: "2024-04-01T00:00:00Z",
      to: "2024-05-01T00:00:00Z",
      contracts: [
        { contractId: a.id, customerId: account.customerId, current: 69, candidate: 79 },
        { contractId: b.id, customerId: customerB, current: 64, candidate: 74 },
      ],
      current: 133,
      candidate: 153,
      hasMore: false,
    });
    const sampled = await rest(account, "POST", "/plans/pro/simulate", {
      products: proTerms(59, 0.002),
      from: "2024-04-01T00:00:00Z",
      to: "2024-05-01T00:00:00Z",
      sample: 1,
    });
    expect(sampled.body.simulation).toMatchObject({ current: 69, candidate: 79, hasMore: false });
    expect(sampled.body.simulation.contracts).toHaveLength(1);
  });
});
