import { fromMicros } from "@billing/shared";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dayKey } from "../src/domain/billing/cycles.js";
import { usageAccumulator } from "../src/domain/usage/aggregate.js";
import { type MeterRule, readEvent } from "../src/domain/usage/read-event.js";
import { createRepositories } from "../src/repositories/index.js";
import { compactUsageRollups } from "../src/services/usage-rollups.js";
import { type BillingAccount, billingAccount, usageProduct } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { startTwinService } from "./support/server.js";

const server = useTestServer();

type Account = BillingAccount;
interface StoredEvent {
  id: string;
  ref: string;
  name: string;
  timestamp: string;
  customerAlias: string;
  data: Record<string, string>;
  voided?: { reason: string; voidedAt: string; voidedBy: { type: string; tokenId?: string } };
}

const voidEvent = (account: Account, eventId: string, reason: string, token = account.token) =>
  server.rest("POST", `/events/${eventId}/void`, { token, body: { reason } });

/** Every event of the account in [from, to), voided ones included (GET /events keeps them, marked). */
async function storedEvents(account: Account, from = "2025-01-01T00:00:00Z", to = "2026-01-01T00:00:00Z") {
  const query = `startTime=${from}&endTime=${to}&limit=1000`;
  return (await server.rest("GET", `/events?${query}`, { token: account.token })).body.events as StoredEvent[];
}
const idOf = async (account: Account, ref: string) =>
  (await storedEvents(account)).find((event) => event.ref === ref)?.id as string;

const usageValue = async (account: Account, meterKey: string, startDate: string, endDate: string) => {
  const query = `customerId=${account.customerId}&meterKey=${meterKey}&startDate=${startDate}&endDate=${endDate}`;
  return (await server.rest("GET", `/usage?${query}`, { token: account.token })).body.usage;
};

const creditNotesOf = async (account: Account, invoiceId: string) =>
  (await server.rest("GET", `/credit-notes?invoiceId=${invoiceId}&limit=100`, { token: account.token })).body
    .creditNotes as { amount: number; reason: string; refund: string; adjusts?: unknown }[];

const units = (ref: string, timestamp: string, n: number) => ({
  ref,
  name: "api",
  timestamp,
  customerAlias: "acme",
  data: { n: String(n) },
});

describe("POST /events/{eventId}/void (issue 45)", () => {
  it("March 800 units at 0.01 invoiced 8.00; a 300-unit event voided → a USAGE_CORRECTION note of 3.00", async () => {
    const account = await billingAccount(server, { name: "Acme", aliases: ["acme"] });
    await account.post("/meters", { key: "units", eventName: "api", aggregation: "SUM", valueProperty: "n" }, 201);
    const contract = await account.contract({
      startDate: "2025-03-01T00:00:00Z",
      endDate: "2025-07-01T00:00:00Z",
      products: [usageProduct("Units", "units", { type: "PER_UNIT", price: 0.01 })],
    });
    await account.post("/webhook-endpoints", { url: "https://hooks.example.com/b", eventTypes: ["event.voided"] }, 201);
    await account.post("/events", {
      events: [units("a", "2025-03-05T10:00:00Z", 500), units("b", "2025-03-10T10:00:00Z", 300)],
    });
    await account.run("2025-04-01T00:00:00Z");
    const [march] = await account.invoices(contract.id);
    expect(march.amount).toBe(8); // (500 + 300) × 0.01 = 8.00

    const eventId = await idOf(account, "b");
    const twin = await startTwinService(server);
    const onTwin = async (reason: string) => {
      const response = await fetch(`${twin.url}/events/${eventId}/void`, {
        method: "POST",
        headers: { authorization: `Bearer ${account.token}`, "content-type": "application/json" },
        body: JSON.stringify({ reason }),
      });
      return { status: response.status, body: await response.json() };
    };
    const [first, second] = await Promise.all([
      voidEvent(account, eventId, "sent twice by the gateway"),
      onTwin("a second operator").finally(() => twin.close()),
    ]);
    // Two voids at once on two instances: one is recorded, the other is 409 (the void's unique insert decides).
    expect([first.status, second.status].sort()).toEqual([200, 409]);
    const won = first.status === 200 ? first : second;
    const lost = first.status === 200 ? second : first;
    expect(lost.body.code ?? lost.body.data?.code).toBe("CONFLICT");
    const me = (await server.rest("GET", "/token", { token: account.token })).body.token;
    expect(won.body).toEqual({
      eventId,
      reason: won.body.reason,
      voidedAt: expect.any(String),
      voidedBy: { type: "token", tokenId: me.id, scope: me.scope },
    });
    // Never deleted: the event is still listed, marked; explain says VOIDED for its meter.
    const [stored] = (await storedEvents(account)).filter((event) => event.ref === "b");
    expect(stored?.voided).toEqual(won.body);
    const explained = (await server.rest("GET", `/events/${eventId}`, { token: account.token })).body;
    expect(explained.attribution.meters).toEqual([{ key: "units", counted: false, reason: "VOIDED" }]);
    expect(explained.event.voided.reason).toBe(won.body.reason);
    // Usage leaves it out once the worker's next step summarized its day again: March holds 500.
    await server.service.upkeep.tick();
    expect((await usageValue(account, "units", "2025-03-01", "2025-04-01")).value).toBe(500);

    // The next run prices March again at 500 = 5.00; it charged 8.00 → −3.00, credited on March, once.
    await Promise.all([account.run("2025-05-01T00:00:00Z"), account.run("2025-05-01T00:00:00Z")]);
    await account.run("2025-05-01T00:00:00Z");
    expect(await creditNotesOf(account, march.id)).toEqual([
      expect.objectContaining({ amount: 3, reason: "USAGE_CORRECTION", refund: "OFFSET" }),
    ]);
    const [marchAfter, april] = await account.invoices(contract.id);
    expect(marchAfter.amountDue).toBe(5); // 8.00 − 3.00
    expect(april.amount).toBe(0); // April: no usage, no LATE_USAGE line
    // Announced once, whoever recorded it.
    const messages = await server.service.db
      .collection("webhookMessages")
      .find({ accountId: account.accountId, type: "event.voided" })
      .toArray();
    expect(messages.map((message) => JSON.parse(message.payload).data)).toEqual([won.body]);

    // The same call again with its Idempotency-Key replays its answer; without one a repeat is 409.
    const keyed = (key: string) =>
      server.rest("POST", `/events/${eventId}/void`, {
        token: account.token,
        body: { reason: "x" },
        headers: { "Idempotency-Key": key },
      });
    expect((await keyed("void-once")).status).toBe(409);
    expect((await keyed("void-once")).status).toBe(409);
    // Bad input names the field; another account's token sees no such event.
    const blank = await voidEvent(account, eventId, "  ");
    expect(blank.status).toBe(400);
    expect(blank.body.issues.map((issue: { path: string }) => issue.path)).toContain("reason");
    const other = await billingAccount(server, { name: "Other" });
    expect((await voidEvent(account, "0123456789abcdef01234567", "r")).status).toBe(404);
    expect((await voidEvent(other, eventId, "not mine")).status).toBe(404);
    // Through tRPC and the SDK's transport too: the same rule.
    await expect(account.trpc().events.void.mutate({ eventId, reason: "again" })).rejects.toThrow(/voided/);
  }, 60_000);
});

describe("a void a crash stopped after its claim", () => {
  it("is finished by the worker: the event marked, its day summarized again, announced once", async () => {
    const account = await billingAccount(server, { name: "Crashed", aliases: ["acme"] });
    await account.post("/meters", { key: "units", eventName: "api", aggregation: "MAX", valueProperty: "n" }, 201);
    await account.post("/events", {
      events: [units("a", "2025-03-05T10:00:00Z", 5), units("b", "2025-03-05T11:00:00Z", 9)],
    });
    expect((await usageValue(account, "units", "2025-03-01", "2025-04-01")).value).toBe(9); // the larger of 5 and 9
    const eventId = await idOf(account, "b");
    // The claim alone, as a request that died right after its insert left it.
    const repositories = createRepositories(server.service.db);
    const claimed = await repositories.eventVoids.claim(account.accountId, {
      eventId,
      accountId: account.accountId,
      key: { accountId: account.accountId, name: "api", alias: "acme", day: "2025-03-05" },
      ref: "b",
      reason: "crashed",
      voidedAt: new Date(),
      voidedBy: { type: "token" },
      appliedAt: null,
    });
    expect(claimed).toBe(true);
    expect((await voidEvent(account, eventId, "again")).status).toBe(409); // decided already
    await server.service.upkeep.tick();
    // MAX cannot subtract: the day was summarized again from its events not voided → 5.
    expect((await usageValue(account, "units", "2025-03-01", "2025-04-01")).value).toBe(5);
    const explained = (await server.rest("GET", `/events/${eventId}`, { token: account.token })).body;
    expect(explained.attribution.meters).toEqual([{ key: "units", counted: false, reason: "VOIDED" }]);
    expect(explained.event.voided).toMatchObject({ reason: "crashed", voidedBy: { type: "token" } });
    expect(await repositories.eventVoids.pending(1000)).not.toContainEqual(expect.objectContaining({ eventId }));
  }, 30_000);
});

/** Meters of every aggregation on the events "call" (filters and distinct values on text, values on numbers). */
const METERS = [
  { key: "calls", eventName: "call", aggregation: "COUNT", filters: [{ property: "region", in: ["eu"] }] },
  { key: "users", eventName: "call", aggregation: "UNIQUE_COUNT", valueProperty: "user" },
  { key: "sum", eventName: "call", aggregation: "SUM", valueProperty: "n" },
  { key: "max", eventName: "call", aggregation: "MAX", valueProperty: "n" },
  { key: "latest", eventName: "call", aggregation: "LATEST", valueProperty: "n" },
] as const;
const PERIODS = [
  ["2025-05-01", "2025-05-04"],
  ["2025-05-02", "2025-05-03"],
] as const;

/** The reference: the meter over the events not voided, recounted from the raw events listed, in (time, id) order. */
function recount(meter: (typeof METERS)[number], events: StoredEvent[], from: string, to: string) {
  const accumulator = usageAccumulator(meter.aggregation);
  const inPeriod = events
    .filter((event) => !event.voided && event.name === meter.eventName)
    .filter((event) => dayKey(new Date(event.timestamp)) >= from && dayKey(new Date(event.timestamp)) < to)
    .sort((a, b) => a.timestamp.localeCompare(b.timestamp) || a.id.localeCompare(b.id));
  for (const event of inPeriod) {
    const reading = readEvent(meter as unknown as MeterRule, event.data);
    if (reading.counted) accumulator.add(dayKey(new Date(event.timestamp)), reading.value);
  }
  const { valueMicros, days } = accumulator.span(new Map()).over();
  return { value: fromMicros(Number(valueMicros)), days: days.map((day) => fromMicros(Number(day.valueMicros))) };
}

async function expectUsageIsRecount(account: Account) {
  const events = await storedEvents(account, "2025-04-01T00:00:00Z", "2025-06-01T00:00:00Z");
  for (const meter of METERS) {
    for (const [from, to] of PERIODS) {
      const usage = await usageValue(account, meter.key, from, to);
      const shown = { value: usage.value, days: usage.days.map((day: { value: number }) => day.value) };
      expect({ meter: meter.key, from, ...shown }).toEqual({
        meter: meter.key,
        from,
        ...recount(meter, events, from, to),
      });
    }
  }
}

const eventArb = fc.record({
  day: fc.constantFrom("2025-05-01T00:00:00Z", "2025-05-01T12:00:00Z", "2025-05-02T12:00:00Z", "2025-05-03T06:00:00Z"),
  region: fc.constantFrom("eu", "us"),
  user: fc.constantFrom("u1", "u2", "u3"),
  n: fc.constantFrom("1", "2.5", "7", "10"),
});
const stepArb = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("ingest" as const), events: fc.array(eventArb, { maxLength: 4 }) }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("void" as const), pick: fc.nat(50) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("compact" as const), limit: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.constant({ kind: "apply" as const }) },
);

describe("voids keep every aggregation's rollups exact", () => {
  it("for random events, voids and compactions: usage equals the recount from the raw events not voided", async () => {
    let accounts = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 2, maxLength: 8 }), async (steps) => {
        const account = await billingAccount(server, { name: `Voids ${accounts++}`, aliases: ["a1"] });
        for (const meter of METERS) await account.post("/meters", meter, 201);
        const repositories = createRepositories(server.service.db);
        let sent = 0;
        for (const step of steps) {
          if (step.kind === "ingest" && step.events.length > 0) {
            const events = step.events.map(({ day, region, user, n }) => ({
              ref: `e${sent++}`,
              name: "call",
              timestamp: day,
              customerAlias: "a1",
              data: { region, user, n },
            }));
            await account.post("/events", { events });
          }
          if (step.kind === "void") {
            const events = await storedEvents(account, "2025-04-01T00:00:00Z", "2025-06-01T00:00:00Z");
            const target = events[step.pick % Math.max(events.length, 1)];
            if (target) {
              const response = await voidEvent(account, target.id, "property");
              expect(response.status).toBe(target.voided ? 409 : 200);
            }
          }
          if (step.kind === "compact") await compactUsageRollups(repositories, step.limit);
          // The worker's step (it also runs on its own every second): voids made so far summarized again.
          if (step.kind === "apply") await server.service.upkeep.tick();
        }
        await server.service.upkeep.tick();
        await expectUsageIsRecount(account);
        while ((await compactUsageRollups(repositories)) > 0);
        await expectUsageIsRecount(account);
      }),
      { numRuns: 6, endOnFailure: true },
    );
  }, 120_000);
});
