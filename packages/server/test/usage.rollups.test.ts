import { fromMicros } from "@billing/shared";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRepositories } from "../src/repositories/index.js";
import { compactUsageRollups, widenUsageRollups } from "../src/services/usage-rollups.js";
import { billingAccount } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { testHooks } from "./support/hooks.js";
import { rawUsageOf } from "./support/raw-usage.js";
import { startTwinService } from "./support/server.js";

/**
 * Usage read from rollups equals usage read from every raw event (today's reference, test/support/raw-usage.ts),
 * whatever the order of events, duplicates, measurements, aliases, meters and compactions.
 */

const server = useTestServer();

/** Meters the runs create at some point: every aggregation, filters on text and on decimal-looking values. */
const METERS = [
  { key: "calls", eventName: "call", aggregation: "COUNT", filters: [{ property: "region", in: ["eu", "12"] }] },
  { key: "calls-all", eventName: "call", aggregation: "COUNT" },
  { key: "users", eventName: "call", aggregation: "UNIQUE_COUNT", valueProperty: "user" },
  { key: "tok-sum", eventName: "tok", aggregation: "SUM", valueProperty: "tokens" },
  {
    key: "tok-max",
    eventName: "tok",
    aggregation: "MAX",
    valueProperty: "tokens",
    filters: [{ property: "region", in: ["eu", "us"] }],
  },
  { key: "tok-latest", eventName: "tok", aggregation: "LATEST", valueProperty: "tokens" },
] as const;
/** Keys read at each check: the meters, and one no meter ever takes (its measurements only). */
const KEYS = [...METERS.map(({ key }) => key), "none"];
const PERIODS = [
  ["2024-05-01", "2024-05-04"],
  ["2024-05-02", "2024-05-03"],
] as const;

const optional = <T>(values: T[]) => fc.option(fc.constantFrom(...values), { nil: undefined });
const eventArb = fc
  .record({
    ref: fc.constantFrom(...Array.from({ length: 12 }, (_, index) => `r${index}`)),
    name: fc.constantFrom("call", "tok"),
    customerAlias: fc.constantFrom("a1", "a2", "ext", "nobody"),
    // Few instants, so that timestamps tie (LATEST breaks ties by event id) and days repeat; one before the periods.
    timestamp: fc.constantFrom(
      "2024-04-30T23:59:59Z",
      "2024-05-01T00:00:00Z",
      "2024-05-01T12:00:00Z",
      "2024-05-02T12:00:00Z",
      "2024-05-02T23:59:59Z",
      "2024-05-03T06:00:00Z",
    ),
    region: optional(["eu", "us", "12"]),
    tokens: optional(["1", "2.5", "x", "1000000000000000", "7"]),
    user: optional(["u1", "u2", "7"]),
  })
  .map(({ region, tokens, user, ...event }) => ({
    ...event,
    data: {
      ...(region !== undefined && { region }),
      ...(tokens !== undefined && { tokens }),
      ...(user !== undefined && { user }),
    },
  }));
const stepArb = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("ingest" as const),
      events: fc.array(eventArb, { minLength: 1, maxLength: 5 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("measure" as const),
      meterId: fc.constantFrom("calls", "tok-sum", "users", "none"),
      day: fc.constantFrom("2024-05-01", "2024-05-02"),
      value: fc.constantFrom(0, 3, 4.5),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("meter" as const), index: fc.nat(METERS.length - 1) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "alias" as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("compact" as const), limit: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "widen" as const }) },
);

type Account = Awaited<ReturnType<typeof billingAccount>>;

async function expectRollupsMatchRaw(account: Account) {
  const repositories = createRepositories(server.service.db);
  for (const key of KEYS) {
    for (const [from, to] of PERIODS) {
      const raw = await rawUsageOf(repositories, account.accountId, account.customerId, key, from, to);
      const response = await server.rest(
        "GET",
        `/usage?customerId=${account.customerId}&meterKey=${key}&startDate=${from}&endDate=${to}`,
        { token: account.token },
      );
      expect(response.status).toBe(200);
      expect({ key, from, to, ...response.body.usage }).toEqual({
        key,
        from,
        to,
        customerId: account.customerId,
        meterKey: key,
        aggregation: raw.aggregation,
        value: fromMicros(Number(raw.valueMicros)),
        days: raw.days.map(({ date, valueMicros, source }) => ({
          date,
          value: fromMicros(Number(valueMicros)),
          source,
        })),
      });
    }
  }
}

/**
 * Round `round`'s three "tok" events of alias a1 on 2024-05-01 noon, of tokens 3·round + 1, + 2, + 3 (so rounds
 * 0 to 3 carry 1 to 12), each with the region `regionOf` gives it, if any.
 */
const tokBatch = (refPrefix: string, round: number, regionOf?: (index: number) => string) =>
  Array.from({ length: 3 }, (_, index) => ({
    ref: `${refPrefix}-${index}`,
    name: "tok",
    customerAlias: "a1",
    timestamp: "2024-05-01T12:00:00Z",
    data: { tokens: String(round * 3 + index + 1), ...(regionOf && { region: regionOf(index) }) },
  }));

/** The account's usage of a meter on 2024-05-01, read over REST. */
const mayFirstUsage = async (account: Account, meterKey = "tok-sum") =>
  (
    await server.rest(
      "GET",
      `/usage?customerId=${account.customerId}&meterKey=${meterKey}&startDate=2024-05-01&endDate=2024-05-02`,
      { token: account.token },
    )
  ).body.usage.value;

/** Past the wait a widening has after its meter's creation (batches that read the meters before it are done). */
const WIDENINGS_DUE = new Date("2100-01-01T00:00:00Z");

/**
 * Widens until every rollup document of the account keeps what the meters of its event name read as text (the
 * dimension keys `METERS` gives: `region` and `user` for "call", `region` for "tok"), then checks that they do.
 */
async function widenAll(accountId: string) {
  const repositories = createRepositories(server.service.db);
  const rollups = server.service.db.collection("usage_rollups");
  const needed: Record<string, string[]> = { call: ["region", "user"], tok: ["region"] };
  const narrow = async () =>
    (await rollups.find({ accountId }).toArray()).filter(({ name, dimensionKeys }) =>
      needed[name]?.some((key) => !dimensionKeys.includes(key)),
    );
  for (let tick = 0; tick < 20 && (await narrow()).length > 0; tick += 1) {
    await widenUsageRollups(repositories, WIDENINGS_DUE);
  }
  expect(await narrow()).toEqual([]);
}

/** Compacts until nothing waits, then checks one document per key is left. */
async function compactAll(accountId: string) {
  const repositories = createRepositories(server.service.db);
  while ((await compactUsageRollups(repositories)) > 0);
  const docs = await server.service.db.collection("usage_rollups").find({ accountId }).toArray();
  const keys = docs.map(({ name, alias, day }) => JSON.stringify([name, alias, day]));
  expect(new Set(keys).size).toBe(keys.length);
  expect(docs.every(({ generation }) => generation > 0)).toBe(true);
}

describe("usage from rollups equals usage from raw events", () => {
  it("over random interleavings of events, duplicates, measurements, aliases, meters, compactions", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 12 }), async (steps) => {
        const account = await billingAccount(server, { name: "Rolled", aliases: ["a1"], externalId: "ext" });
        const created = new Set<number>();
        const repositories = createRepositories(server.service.db);
        for (const step of steps) {
          if (step.kind === "ingest") await account.post("/events", { events: step.events });
          if (step.kind === "measure") await account.measure(step.meterId, step.day, step.value).catch(() => {});
          if (step.kind === "meter" && !created.has(step.index)) {
            created.add(step.index);
            await account.post("/meters", METERS[step.index], 201);
          }
          if (step.kind === "alias") {
            const patched = await server.rest("PATCH", `/customers/${account.customerId}`, {
              token: account.token,
              body: { aliases: ["a1", "a2"] },
            });
            expect(patched.status).toBe(200);
          }
          if (step.kind === "compact") await compactUsageRollups(repositories, step.limit);
          if (step.kind === "widen") await widenUsageRollups(repositories, WIDENINGS_DUE);
        }
        for (const index of METERS.keys()) {
          if (!created.has(index)) await account.post("/meters", METERS[index], 201);
        }
        await expectRollupsMatchRaw(account);
        await compactAll(account.accountId);
        await expectRollupsMatchRaw(account);
        // Every meter now exists: widened, every day is read from rollups alone, with the same answers.
        await widenAll(account.accountId);
        await expectRollupsMatchRaw(account);
      }),
      { numRuns: 10, endOnFailure: true },
    );
  }, 600_000);

  it("concurrent compactions beside ingestion: each partial merged once, one document per key left", async () => {
    const account = await billingAccount(server, { name: "Raced", aliases: ["a1"] });
    await account.post("/meters", METERS[3], 201);
    await account.post("/meters", METERS[5], 201);
    const repositories = createRepositories(server.service.db);
    const batch = (round: number) => tokBatch(`race-${round}`, round);
    for (let round = 0; round < 4; round += 1) {
      await Promise.all([
        account.post("/events", { events: batch(round) }),
        compactUsageRollups(repositories),
        compactUsageRollups(repositories),
        compactUsageRollups(repositories),
      ]);
    }
    await compactAll(account.accountId);
    // Tokens 1 + 2 + … + 12 = 78 over 12 events, all on 2024-05-01; ties broken by event id for LATEST.
    expect(await mayFirstUsage(account)).toBe(78);
    expect(await server.service.db.collection("usage_rollups").countDocuments({ accountId: account.accountId })).toBe(
      1,
    );
    await expectRollupsMatchRaw(account);
  }, 120_000);

  it("a meter created after its events: widened beside ingestion and compactions, each event once", async () => {
    const account = await billingAccount(server, { name: "Widened", aliases: ["a1"] });
    await account.post("/meters", METERS[3], 201);
    const repositories = createRepositories(server.service.db);
    const batch = (round: number) => tokBatch(`wide-${round}`, round, (index) => (index === 1 ? "us" : "eu"));
    // Rolled up while no meter reads `region`: the rollups drop it.
    await account.post("/events", { events: batch(0) });
    await compactAll(account.accountId);
    await account.post("/meters", METERS[4], 201); // tok-max, filtered on region eu or us
    for (let round = 1; round < 4; round += 1) {
      await Promise.all([
        account.post("/events", { events: batch(round) }),
        compactUsageRollups(repositories),
        widenUsageRollups(repositories, WIDENINGS_DUE),
        widenUsageRollups(repositories, WIDENINGS_DUE),
      ]);
    }
    await widenAll(account.accountId);
    await compactAll(account.accountId);
    // Tokens 1 + 2 + … + 12 = 78 over 12 events; the largest of them, all in eu or us, is 12.
    expect(await mayFirstUsage(account)).toBe(78);
    expect(await mayFirstUsage(account, "tok-max")).toBe(12);
    const [rollup] = await server.service.db
      .collection("usage_rollups")
      .find({ accountId: account.accountId })
      .toArray();
    expect(rollup?.dimensionKeys).toEqual(["region"]);
    await expectRollupsMatchRaw(account);
  }, 120_000);

  it("a widening that read a key before a batch stored its events there leaves that batch to its partial", async () => {
    const account = await billingAccount(server, { name: "Interleaved", aliases: ["w1"] });
    await account.post("/meters", METERS[3], 201);
    const event = (ref: string, tokens: string) => ({
      ref,
      name: "tok",
      customerAlias: "w1",
      timestamp: "2024-05-01T12:00:00Z",
      data: { tokens, region: "eu" },
    });
    await account.post("/events", { events: [event("i-1", "2")] });
    await compactAll(account.accountId);
    await account.post("/meters", METERS[4], 201); // reads region: the compaction above dropped it
    const control = testHooks();
    // The widening has read the key (its compaction); a batch then stores its events and its partial.
    const paused = control.pauseOnce("rollups.widen", "w1");
    const widening = widenUsageRollups(createRepositories(server.service.db, { hooks: control.hooks }), WIDENINGS_DUE);
    await paused.reached;
    await account.post("/events", { events: [event("i-2", "5")] });
    paused.release();
    expect(await widening).toBe(1);
    await compactAll(account.accountId);
    // 2 + 5 = 7 tokens, each event once: the second batch's events were read by the widening but belong to its
    // partial, live at the widening's second read.
    expect(await mayFirstUsage(account)).toBe(7);
    await expectRollupsMatchRaw(account);
  }, 120_000);

  it("after a compaction died before its deletes, the partials it holds are skipped, then cleaned up", async () => {
    const account = await billingAccount(server, { name: "Crashed", aliases: ["a1"] });
    for (const meter of METERS) await account.post("/meters", meter, 201);
    const rollups = server.service.db.collection("usage_rollups");
    for (let batch = 0; batch < 3; batch += 1) {
      await account.post("/events", {
        events: [
          {
            ref: `x-${batch}`,
            name: "tok",
            customerAlias: "a1",
            timestamp: "2024-05-01T10:00:00Z",
            data: { tokens: "2" },
          },
        ],
      });
    }
    const partials = await rollups.find({ accountId: account.accountId }).toArray();
    expect(partials).toHaveLength(3);
    await compactAll(account.accountId);
    // The state a crash between the compaction's insert and its deletes leaves: its partials are still there.
    await rollups.insertMany(partials);
    const usage = () => mayFirstUsage(account);
    expect(await usage()).toBe(6); // 3 events × 2 tokens, not 12
    await compactAll(account.accountId);
    expect(await rollups.countDocuments({ accountId: account.accountId })).toBe(1);
    expect(await usage()).toBe(6);
    await expectRollupsMatchRaw(account);
  }, 120_000);

  it("the billing scheduler of two instances compacts what is ingested, and usage stays the same", async () => {
    const account = await billingAccount(server, { name: "Scheduled", aliases: ["a1", "a2"] });
    for (const meter of METERS) await account.post("/meters", meter, 201);
    const instances = await Promise.all(
      [1, 2].map(() => startTwinService(server, { billingScheduler: { intervalMs: 50 } })),
    );
    try {
      for (let batch = 0; batch < 3; batch += 1) {
        await account.post("/events", {
          events: ["a1", "a2"].flatMap((customerAlias, index) => [
            {
              ref: `s-${batch}-${index}-c`,
              name: "call",
              customerAlias,
              timestamp: "2024-05-01T10:00:00Z",
              data: { region: "eu", user: `u${batch}` },
            },
            {
              ref: `s-${batch}-${index}-t`,
              name: "tok",
              customerAlias,
              timestamp: "2024-05-02T10:00:00Z",
              data: { tokens: String(batch + 1) },
            },
          ]),
        });
      }
      const rollups = server.service.db.collection("usage_rollups");
      // Two names × two aliases, one day each: four keys, each ending as one compaction.
      while ((await rollups.countDocuments({ accountId: account.accountId, generation: { $gt: 0 } })) < 4)
        await new Promise((resolve) => setTimeout(resolve, 50));
      await compactAll(account.accountId);
      expect(await rollups.countDocuments({ accountId: account.accountId })).toBe(4);
      await expectRollupsMatchRaw(account);
    } finally {
      await Promise.all(instances.map((instance) => instance.close()));
    }
  }, 120_000);
});
