import { ObjectId } from "mongodb";
import { describe, expect, it } from "vitest";
import { EVENTS_PER_MIGRATION_STEP } from "../src/repositories/events.js";
import { createRepositories } from "../src/repositories/index.js";
import { compactUsageRollups, maintainUsageRollups } from "../src/services/usage-rollups.js";
import { useTestServer } from "./support/harness.js";
import { tokensAccount } from "./support/rollup-accounts.js";

/**
 * Upgrading from a version without rollups: the events it stored have none, and no batch. Usage reads them raw until
 * the scheduler's migration steps have rolled every one up, exactly once, then reads rollups alone.
 */

const server = useTestServer();

/** An event as the version before rollups stored it: data as key/value pairs, no `batchId`. */
const storedBeforeRollups = (accountId: string, ref: string, timestamp: string, tokens: number) => ({
  _id: new ObjectId(),
  accountId,
  ref,
  name: "tok",
  timestamp: new Date(timestamp),
  customerAlias: "a1",
  data: [
    { key: "tokens", value: String(tokens) },
    { key: "requestId", value: `req-${ref}` },
  ],
  createdAt: new Date("2024-05-02T00:00:00Z"),
  updatedAt: new Date("2024-05-02T00:00:00Z"),
});

const setUp = (name: string) => tokensAccount(server, name);

describe("events stored before rollups existed", () => {
  it("count raw until every one is rolled up, once, across a lost progress; then from rollups alone", async () => {
    const first = await setUp("Upgraded");
    const second = await setUp("Upgraded too");
    // The other account's two events (same name, alias and day) come first in _id order, so the first step's page
    // holds both accounts' events of one key; with the first account's 1,001 the migration takes two steps.
    const events = [
      storedBeforeRollups(second.account.accountId, "other-1", "2024-05-01T11:00:00Z", 100),
      storedBeforeRollups(second.account.accountId, "other-2", "2024-05-02T11:00:00Z", 100),
      ...Array.from({ length: EVENTS_PER_MIGRATION_STEP + 1 }, (_, index) =>
        storedBeforeRollups(first.account.accountId, `old-${index}`, "2024-05-01T10:00:00Z", 1),
      ),
    ];
    await server.service.db.collection("events").insertMany(events);
    await first.account.post("/events", {
      events: [
        { ref: "new-1", name: "tok", customerAlias: "a1", timestamp: "2024-05-02T09:00:00Z", data: { tokens: "7" } },
      ],
    });
    const firstTotal = EVENTS_PER_MIGRATION_STEP + 1 + 7; // 1,001 old events of 1 token, then one of 7
    const secondTotal = 200; // 100 + 100
    expect(await first.usage()).toBe(firstTotal);
    expect(await second.usage()).toBe(secondTotal);

    const tick = () => maintainUsageRollups(createRepositories(server.service.db), new Date());
    expect(await tick()).toMatchObject({ eventsMigrated: EVENTS_PER_MIGRATION_STEP });
    // Half rolled up: still read raw, still exact.
    expect(await first.usage()).toBe(firstTotal);
    // The progress is lost (a crash before it was saved): the next step redoes the first page and writes nothing new.
    await server.service.db.collection("event_rollup_migrations").deleteMany({});
    expect(await tick()).toMatchObject({ eventsMigrated: EVENTS_PER_MIGRATION_STEP });
    expect(await tick()).toMatchObject({ eventsMigrated: 3 }); // 1,003 old events in all
    expect(await tick()).toMatchObject({ eventsMigrated: 0 });
    while ((await compactUsageRollups(createRepositories(server.service.db))) > 0);

    // From rollups alone now: prove it by removing the old events (a read of them would miss them).
    await server.service.db.collection("events").deleteMany({ batchId: null });
    expect(await first.usage()).toBe(firstTotal);
    expect(await second.usage()).toBe(secondTotal);
    // No request id made a group of its own: one group per key (no meter needs any text property of "tok").
    const rollups = await server.service.db
      .collection("usage_rollups")
      .find({ accountId: first.account.accountId })
      .toArray();
    expect(rollups.map(({ day, groups }) => [day, groups.length]).sort()).toEqual([
      ["2024-05-01", 1],
      ["2024-05-02", 1],
    ]);
  });
});
