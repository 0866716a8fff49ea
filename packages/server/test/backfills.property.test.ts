import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRepositories } from "../src/repositories/index.js";
import { compactUsageRollups } from "../src/services/usage-rollups.js";
import { type BillingAccount, billingAccount } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

const server = useTestServer();

/** The meters read: SUM and COUNT could subtract a voided event, MAX cannot (its day is summarized again). */
const METERS = [
  { key: "sum", eventName: "call", aggregation: "SUM", valueProperty: "n" },
  { key: "count", eventName: "call", aggregation: "COUNT" },
  { key: "max", eventName: "call", aggregation: "MAX", valueProperty: "n" },
] as const;
/** Customer A (alias a1) and customer B (alias b1). */
const ALIASES = ["a1", "b1"] as const;
const TIMES = ["2025-05-01T03:00:00Z", "2025-05-01T20:00:00Z", "2025-05-02T12:00:00Z", "2025-05-03T06:00:00Z"];
const WINDOWS = [
  ["2025-05-01T00:00:00Z", "2025-05-02T00:00:00Z"],
  ["2025-05-01T00:00:00Z", "2025-05-03T00:00:00Z"],
  ["2025-05-02T00:00:00Z", "2025-05-04T00:00:00Z"],
] as const;

/** What the test knows of each event it sent: whether it counts now, and which backfill stored or replaced it. */
interface Known {
  ref: string;
  alias: string;
  timestamp: string;
  n: number;
  live: boolean;
  storedBy?: string;
  replacedBy?: string;
}

/** Events as POST /events and POST /backfills take them: `call` events of `n` under the customer's alias. */
const asSent = (events: Pick<Known, "ref" | "alias" | "timestamp" | "n">[]) =>
  events.map(({ ref, alias, timestamp, n }) => ({
    ref,
    name: "call",
    timestamp,
    customerAlias: alias,
    data: { n: String(n) },
  }));

/** The reference: each customer's usage of each meter per day, recounted from the events the test knows are live. */
function recount(known: Known[], alias: string, meter: (typeof METERS)[number]) {
  const byDay = new Map<string, number[]>();
  for (const event of known.filter((candidate) => candidate.live && candidate.alias === alias)) {
    const day = event.timestamp.slice(0, 10);
    byDay.set(day, [...(byDay.get(day) ?? []), event.n]);
  }
  const aggregate = (values: number[]) =>
    meter.aggregation === "SUM"
      ? values.reduce((sum, n) => sum + n, 0)
      : meter.aggregation === "COUNT"
        ? values.length
        : Math.max(...values);
  const days = [...byDay.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([date, values]) => ({ date, value: aggregate(values) }));
  const all = [...byDay.values()].flat();
  return { value: all.length === 0 ? 0 : aggregate(all), days };
}

async function expectUsageIsRecount(account: BillingAccount, customers: Record<string, string>, known: Known[]) {
  for (const alias of ALIASES) {
    for (const meter of METERS) {
      const query = `customerId=${customers[alias]}&meterKey=${meter.key}&startDate=2025-05-01&endDate=2025-05-04`;
      const { usage } = (await server.rest("GET", `/usage?${query}`, { token: account.token })).body;
      const shown = {
        value: usage.value,
        days: usage.days.map(({ date, value }: { date: string; value: number }) => ({ date, value })),
      };
      expect({ alias, meter: meter.key, ...shown }).toEqual({
        alias,
        meter: meter.key,
        ...recount(known, alias, meter),
      });
    }
  }
}

const eventArb = fc.record({
  alias: fc.constantFrom(...ALIASES),
  time: fc.constantFrom(...TIMES),
  n: fc.constantFrom(1, 3, 7),
});
const stepArb = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("ingest" as const),
      events: fc.array(eventArb, { minLength: 1, maxLength: 3 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("void" as const), pick: fc.nat(40) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("backfill" as const),
      mode: fc.constantFrom("ADD" as const, "REPLACE" as const),
      ofA: fc.boolean(),
      window: fc.nat(WINDOWS.length - 1),
      events: fc.array(fc.record({ time: fc.nat(40), n: fc.constantFrom(2, 5) }), { minLength: 1, maxLength: 2 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("revert" as const), pick: fc.nat(10) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("compact" as const), limit: fc.integer({ min: 1, max: 3 }) }) },
);

type Step = typeof stepArb extends fc.Arbitrary<infer T> ? T : never;
/**
 * Tried first: B1 adds two events on May 1, B2 replaces May 1–2 (B1's events among those it voids), B1 is reverted
 * (its events are voided by B2 already), then B2 (what it replaced comes back, but not B1's events), then a void.
 */
const NESTED: Step[] = [
  {
    kind: "backfill",
    mode: "ADD",
    ofA: false,
    window: 0,
    events: [
      { time: 0, n: 2 },
      { time: 1, n: 5 },
    ],
  },
  { kind: "backfill", mode: "REPLACE", ofA: false, window: 1, events: [{ time: 2, n: 5 }] },
  { kind: "revert", pick: 0 },
  { kind: "revert", pick: 0 },
  { kind: "void", pick: 1 },
];

describe("backfills and reverts keep every usage read exact (issue 45: rollups stay exact through all of it)", () => {
  it("for random events, voids, backfills (ADD, REPLACE) and reverts: each read equals the recount", async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 5, maxLength: 7 }), async (steps) => {
        const account = await billingAccount(server, { name: `Property ${runs++}`, aliases: ["a1"] });
        const customers = { a1: account.customerId, b1: await account.newCustomer({ name: "B", aliases: ["b1"] }) };
        for (const meter of METERS) await account.post("/meters", meter, 201);
        const repositories = createRepositories(server.service.db);
        const known: Known[] = [];
        const completed: string[] = [];
        const reverted = new Set<string>();
        let sent = 0;
        const idsByRef = async () => {
          const query = "startTime=2025-05-01T00:00:00Z&endTime=2025-05-04T00:00:00Z&limit=1000";
          const { events } = (await server.rest("GET", `/events?${query}`, { token: account.token })).body;
          return new Map((events as { ref: string; id: string }[]).map(({ ref, id }) => [ref, id]));
        };
        /** Upkeep ticks until the backfill reaches `end`, then one more (the voids of its last step applied). */
        const until = async (id: string, end: string) => {
          for (let tick = 0; tick < 20; tick += 1) {
            await server.service.upkeep.tick();
            const { backfill } = (await server.rest("GET", `/backfills/${id}`, { token: account.token })).body;
            if (backfill.status === end) break;
          }
          await server.service.upkeep.tick();
          return (await server.rest("GET", `/backfills/${id}`, { token: account.token })).body.backfill;
        };
        // Each customer's usage to start from: what backfills replace and reverts restore.
        const start = {
          kind: "ingest" as const,
          events: TIMES.map((time, index) => ({ alias: ALIASES[index % 2] as string, time, n: 3 })),
        };
        for (const step of [start, ...steps]) {
          if (step.kind === "ingest") {
            const events = step.events.map(({ alias, time, n }) => ({ ref: `e${sent++}`, alias, timestamp: time, n }));
            await account.post("/events", {
              events: asSent(events),
            });
            known.push(...events.map((event) => ({ ...event, live: true })));
          }
          if (step.kind === "void" && known.length > 0) {
            const target = known[step.pick % known.length] as Known;
            const id = (await idsByRef()).get(target.ref);
            const response = await server.rest("POST", `/events/${id}/void`, {
              token: account.token,
              body: { reason: "property" },
            });
            expect(response.status).toBe(target.live ? 200 : 409);
            target.live = false;
            await server.service.upkeep.tick();
          }
          if (step.kind === "backfill") {
            const [from, to] = WINDOWS[step.window] as readonly [string, string];
            const inWindow = TIMES.filter((time) => time >= from && time < to);
            const events = step.events.map(({ time, n }) => ({
              ref: `e${sent++}`,
              alias: step.ofA ? "a1" : (ALIASES[time % 2] as string),
              timestamp: inWindow[time % inWindow.length] as string,
              n,
            }));
            const body = {
              ...(step.ofA && { customerId: customers.a1 }),
              meterKey: "sum",
              from,
              to,
              mode: step.mode,
              events: asSent(events),
            };
            const id = (await account.post("/backfills", body, 202)).backfill.id;
            expect((await until(id, "COMPLETED")).status).toBe("COMPLETED");
            completed.push(id);
            if (step.mode === "REPLACE") {
              for (const event of known) {
                const inScope = (!step.ofA || event.alias === "a1") && event.timestamp >= from && event.timestamp < to;
                if (event.live && inScope) Object.assign(event, { live: false, replacedBy: id });
              }
            }
            known.push(...events.map((event) => ({ ...event, live: true, storedBy: id })));
          }
          if (step.kind === "revert" && completed.length > 0) {
            const id = completed.splice(step.pick % completed.length, 1)[0] as string;
            expect((await server.rest("POST", `/backfills/${id}/revert`, { token: account.token })).status).toBe(202);
            expect((await until(id, "REVERTED")).status).toBe("REVERTED");
            reverted.add(id);
            for (const event of known) {
              if (event.storedBy === id) event.live = false;
              // Restored, unless a backfill reverted since stored it (without this one, its revert voided it).
              const ofReverted = event.storedBy !== undefined && reverted.has(event.storedBy);
              if (event.replacedBy === id) Object.assign(event, { live: !ofReverted, replacedBy: undefined });
            }
          }
          if (step.kind === "compact") await compactUsageRollups(repositories, step.limit);
          await expectUsageIsRecount(account, customers, known);
        }
        while ((await compactUsageRollups(repositories)) > 0);
        await expectUsageIsRecount(account, customers, known);
      }),
      { seed: 45, numRuns: 3, endOnFailure: true, examples: [[NESTED]] },
    );
  }, 120_000);
});
