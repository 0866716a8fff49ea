import { MICROS } from "@billing/shared";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { usageAccumulator } from "../src/domain/usage/aggregate.js";
import { duplicateRefs, firstOfEachRef, rollupPartials } from "../src/domain/usage/batch.js";
import { type MeterRule, readEvent } from "../src/domain/usage/read-event.js";
import {
  dimensionKeysOf,
  mergeRollups,
  type RolledEvent,
  readRollupDay,
  summarizeEvents,
} from "../src/domain/usage/rollup.js";
import { isHeldByWidening, keepsEvery, partialIdOf } from "../src/domain/usage/widening.js";

/**
 * The pure rollup functions against the per-event rule (readEvent, events in timestamp then id order): one day's
 * events, split into partials in any way (each keeping the dimensions its meters needed then) and merged in any
 * order, read the same as the events themselves.
 */

/** The text properties a partial may have kept: those of meters that existed when its batch was summarized. */
const keptArb = fc.subarray(["region", "user"]);

const eventArb = fc.record({
  // Instants from a small set: LATEST ties on the instant are broken by the id, as the raw read sorts. Ids are
  // unique (the position below) behind a random prefix, so that their order is not the order of the list.
  id: fc.constantFrom("0", "4", "9", "a", "f").map((digit) => digit.repeat(20)),
  timestamp: fc.integer({ min: 0, max: 4 }).map((hour) => new Date(Date.UTC(2024, 4, 1, hour))),
  data: fc.record(
    {
      region: fc.constantFrom("eu", "us", "12"),
      tokens: fc.constantFrom("1", "2.5", "x", "999999999999999.999999", "0", "7"),
      user: fc.constantFrom("u1", "u2", "7"),
    },
    { requiredKeys: [] },
  ),
});

const filtersOf = (...options: MeterRule["filters"][]) => fc.constantFrom(...options);
const meterArb: fc.Arbitrary<MeterRule> = fc.oneof(
  fc.record({
    aggregation: fc.constant("COUNT" as const),
    filters: filtersOf(undefined, [{ property: "region", in: ["eu"] }]),
  }),
  fc.record({
    aggregation: fc.constantFrom("SUM" as const, "MAX" as const, "LATEST" as const),
    valueProperty: fc.constantFrom("tokens", "region"),
    filters: filtersOf(undefined, [{ property: "region", in: ["eu", "us"] }], [{ property: "user", in: ["u1"] }]),
  }),
  fc.record({ aggregation: fc.constant("UNIQUE_COUNT" as const), valueProperty: fc.constantFrom("user", "region") }),
);

/** The events of the day, read one by one as the raw read does. */
function perEvent(meter: MeterRule, events: RolledEvent[]) {
  const accumulator = usageAccumulator(meter.aggregation);
  const ordered = [...events].sort(
    (a, b) => a.timestamp.getTime() - b.timestamp.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  for (const event of ordered) {
    const reading = readEvent(meter, event.data);
    if (reading.counted) accumulator.add("2024-05-01", reading.value);
  }
  return accumulator.total(new Map());
}

describe("rollup groups", () => {
  it("read as the events do, however the day's events are split into partials and merged", () => {
    fc.assert(
      fc.property(
        meterArb,
        fc.array(eventArb, { maxLength: 30 }),
        fc.array(fc.nat(3), { maxLength: 30 }),
        fc.array(keptArb, { minLength: 4, maxLength: 4 }),
        (meter, drawn, partOf, keptOf) => {
          const events = drawn.map((event, index) => ({
            ...event,
            id: event.id + index.toString(16).padStart(4, "0"),
          }));
          const parts = [0, 1, 2, 3].map((part) => events.filter((_, index) => (partOf[index] ?? 0) === part));
          const partials = parts.map((part, index) => {
            const dimensionKeys = keptOf[index] ?? [];
            return { dimensionKeys, groups: summarizeEvents(part, dimensionKeys) };
          });
          const reading = readRollupDay(meter, mergeRollups(partials.reverse()));
          if (reading.needsEvents) {
            // Only when the meter reads as text a property some partial did not keep, or some event sent as a decimal.
            const asText = dimensionKeysOf([meter]);
            const notKept = partials.some(({ dimensionKeys }) => asText.some((key) => !dimensionKeys.includes(key)));
            const decimal = events.some(({ data }) =>
              asText.some((key) => /^\d/.test(data[key as keyof typeof data] ?? "")),
            );
            expect(notKept || decimal).toBe(true);
            return;
          }
          const accumulator = usageAccumulator(meter.aggregation);
          for (const value of reading.values) accumulator.add("2024-05-01", value);
          expect(accumulator.total(new Map())).toEqual(perEvent(meter, events));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("keep the latest decimal by timestamp, then id, and text values as they are", () => {
    const at = new Date("2024-05-01T10:00:00Z");
    const groups = summarizeEvents(
      [
        { id: "b".repeat(24), timestamp: at, data: { tokens: "5", region: "eu" } },
        { id: "a".repeat(24), timestamp: at, data: { tokens: "9", region: "eu" } },
        { id: "c".repeat(24), timestamp: new Date("2024-05-01T09:00:00Z"), data: { tokens: "20", region: "eu" } },
      ],
      ["region"],
    );
    expect(groups).toEqual([
      {
        dimensions: [{ key: "region", value: "eu" }],
        events: 3,
        measures: [
          {
            key: "tokens",
            events: 3,
            sumMicros: 34n * MICROS, // 5 + 9 + 20
            maxMicros: 20n * MICROS,
            // Two events at 10:00: the larger id, "bbb…", is the later one, as the raw read sorts by (timestamp, _id).
            latestAt: at,
            latestId: "b".repeat(24),
            latestMicros: 5n * MICROS,
          },
        ],
      },
    ]);
  });

  it("keep only the text properties meters need: a unique request id on every event makes no group of its own", () => {
    const at = new Date("2024-05-01T10:00:00Z");
    const events = Array.from({ length: 50 }, (_, index) => ({
      id: index.toString(16).padStart(24, "0"),
      timestamp: at,
      data: { requestId: `req-${index}`, region: index % 2 === 0 ? "eu" : "us", tokens: "1" },
    }));
    const meters: MeterRule[] = [
      { aggregation: "SUM", valueProperty: "tokens", filters: [{ property: "region", in: ["eu"] }] },
    ];
    const groups = summarizeEvents(events, dimensionKeysOf(meters));
    // Two groups (eu, us) of 25 events each, whatever the 50 request ids.
    expect(groups.map(({ dimensions, events: count }) => [dimensions, count])).toEqual([
      [[{ key: "region", value: "eu" }], 25],
      [[{ key: "region", value: "us" }], 25],
    ]);
    // A meter created later that counts distinct request ids finds them not kept: that day is read from its events.
    const requests: MeterRule = { aggregation: "UNIQUE_COUNT", valueProperty: "requestId" };
    expect(readRollupDay(requests, { dimensionKeys: ["region"], groups })).toEqual({ needsEvents: true });
  });
});

describe("which events a widened compaction holds", () => {
  const key = { name: "tok", alias: "a1", day: "2024-05-01" };
  const partial = (batchId: string) => partialIdOf(batchId, key);
  const reads = {
    firstPartials: new Set([partial("b-first"), partial("b-open")]),
    laterPartials: new Set([partial("b-first"), partial("b-open"), partial("b-later")]),
    openBatches: new Set(["b-open", "b-unwritten"]),
  };
  it("holds what the compaction it replaces held and the partials it merges; leaves what stays live", () => {
    expect(isHeldByWidening(undefined, key, reads)).toBe(true); // stored before batches: rolled up by the migration
    expect(isHeldByWidening("b-first", key, reads)).toBe(true); // its partial, live at the first read, is merged
    expect(isHeldByWidening("b-merged", key, reads)).toBe(true); // closed, its partial already compacted
    expect(isHeldByWidening("b-later", key, reads)).toBe(false); // its partial came after the first read: stays live
    expect(isHeldByWidening("b-open", key, reads)).toBe(false); // open: its partial is never merged while so
    expect(isHeldByWidening("b-unwritten", key, reads)).toBe(false); // open, partial not written yet: its own
  });
  it("needs every needed key kept; rollups that kept every property keep them all", () => {
    expect(keepsEvery(["region", "user"], ["region"])).toBe(true);
    expect(keepsEvery(["user"], ["region"])).toBe(false);
    expect(keepsEvery(undefined, ["region"])).toBe(true);
  });
});

describe("a batch of events (domain/usage/batch.ts)", () => {
  it("stores each ref once and reports every other occurrence, and every ref not stored, as a duplicate", () => {
    const inputs = [{ ref: "a" }, { ref: "b" }, { ref: "a" }, { ref: "c" }];
    expect(firstOfEachRef(inputs).map(({ ref }) => ref)).toEqual(["a", "b", "c"]);
    // "b" was stored before (by another batch): this batch stored a and c.
    expect(duplicateRefs(inputs, ["a", "c"])).toEqual(["b", "a"]);
  });

  it("makes one partial per name, alias and UTC day, in the order the keys first occur", () => {
    const event = (id: string, name: string, alias: string, at: string) => ({
      id,
      name,
      alias,
      timestamp: new Date(at),
      data: { region: "eu", trace: id },
    });
    const partials = rollupPartials(
      "acct",
      [
        event("1", "api", "acme", "2024-01-01T23:00:00Z"),
        event("2", "api", "acme", "2024-01-02T01:00:00Z"),
        event("3", "api", "acme", "2024-01-01T01:00:00Z"),
        event("4", "api", "beta", "2024-01-01T01:00:00Z"),
      ],
      new Map([["api", ["region"]]]),
    );
    expect(partials.map(({ key, dimensionKeys, groups }) => [key, dimensionKeys, groups[0]?.events])).toEqual([
      [{ accountId: "acct", name: "api", alias: "acme", day: "2024-01-01" }, ["region"], 2],
      [{ accountId: "acct", name: "api", alias: "acme", day: "2024-01-02" }, ["region"], 1],
      [{ accountId: "acct", name: "api", alias: "beta", day: "2024-01-01" }, ["region"], 1],
    ]);
  });
});
