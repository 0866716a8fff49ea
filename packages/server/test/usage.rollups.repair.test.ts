import { describe, expect, it } from "vitest";
import { BATCH_REPAIR_AFTER_MS } from "../src/repositories/events.js";
import { createRepositories } from "../src/repositories/index.js";
import { compactUsageRollups, maintainUsageRollups } from "../src/services/usage-rollups.js";
import { useTestServer } from "./support/harness.js";
import { testHooks } from "./support/hooks.js";
import { tokensAccount } from "./support/rollup-accounts.js";

/** A `POST /events` call that stops between storing its events and writing their rollup partials loses nothing. */

const faults = testHooks();
const server = useTestServer({ hooks: faults.hooks });

const tok = (ref: string, timestamp: string, tokens: number) => ({
  ref,
  name: "tok",
  customerAlias: "a1",
  timestamp,
  data: { tokens: String(tokens) },
});
/** Two keys (2024-05-01 and 2024-05-02), so the batch writes two partials. */
const crashedBatch = [
  tok("c1", "2024-05-01T10:00:00Z", 2),
  tok("c2", "2024-05-01T11:00:00Z", 3),
  tok("c3", "2024-05-02T10:00:00Z", 5),
];
/** A scheduler tick of an instance whose clock is past the repair delay of every batch sent so far. */
const tickLater = () =>
  maintainUsageRollups(createRepositories(server.service.db), new Date(Date.now() + BATCH_REPAIR_AFTER_MS + 60_000));

const setUp = (name: string) => tokensAccount(server, name);

describe("a batch cut short between its events and its partials", () => {
  it("is counted once by the tick's repair after its retry stored nothing, before and after compaction", async () => {
    const { account, usage } = await setUp("Cut short");
    faults.fail("events.partials", account.accountId, 1);
    const failed = await server.rest("POST", "/events", { token: account.token, body: { events: crashedBatch } });
    expect(failed.status).toBe(500);
    // The retry finds its refs stored, and a later batch counts as usual.
    expect(await account.post("/events", { events: crashedBatch })).toEqual({
      stored: 0,
      duplicates: ["c1", "c2", "c3"],
    });
    await account.post("/events", { events: [tok("d1", "2024-05-01T12:00:00Z", 7)] });
    expect(await usage()).toBe(7); // the gap: only the later batch
    // A tick now leaves the batch alone (its call might still be writing), and compacts the rest.
    expect(await maintainUsageRollups(createRepositories(server.service.db), new Date())).toMatchObject({
      batchesRepaired: 0,
    });
    expect(await usage()).toBe(7);

    expect(await tickLater()).toMatchObject({ batchesRepaired: 1 });
    expect(await usage()).toBe(17); // 2 + 3 + 5 + 7
    expect(await tickLater()).toMatchObject({ batchesRepaired: 0 });
    while ((await compactUsageRollups(createRepositories(server.service.db))) > 0);
    const rollups = await server.service.db
      .collection("usage_rollups")
      .find({ accountId: account.accountId })
      .toArray();
    expect(rollups.map(({ day, generation }) => [day, generation > 0]).sort()).toEqual([
      ["2024-05-01", true],
      ["2024-05-02", true],
    ]);
    expect(await usage()).toBe(17);
  });

  it("keeps its partials out of compaction until repaired, then writes only the partial never written", async () => {
    const { account, usage } = await setUp("Half written");
    const batches = server.service.db.collection("event_batches");
    const rollups = server.service.db.collection("usage_rollups");
    const pause = faults.pauseOnce("events.partials", account.accountId);
    const posted = server.rest("POST", "/events", { token: account.token, body: { events: crashedBatch } });
    await pause.reached;
    const open = await batches.findOne({ accountId: account.accountId });
    pause.release();
    expect(open).not.toBeNull();
    expect((await posted).status).toBe(200);
    expect(await usage()).toBe(10); // 2 + 3 + 5
    // The state a call that died within its partial insert leaves: the batch open, one of its two partials written.
    await batches.insertOne(open ?? {});
    await rollups.deleteOne({ accountId: account.accountId, day: "2024-05-02" });
    expect(await usage()).toBe(5); // 2 + 3: the 2024-05-02 partial is missing
    // Compaction leaves the open batch's partial as it is, so the repair can still tell it was written.
    while ((await compactUsageRollups(createRepositories(server.service.db))) > 0);
    expect(await rollups.countDocuments({ accountId: account.accountId, generation: 0 })).toBe(1);

    expect(await tickLater()).toMatchObject({ batchesRepaired: 1, rollupsCompacted: 2 });
    expect(await usage()).toBe(10); // 2 + 3 counted once, 5 restored
    expect(await rollups.countDocuments({ accountId: account.accountId, generation: 0 })).toBe(0);
    expect(await batches.countDocuments({ accountId: account.accountId })).toBe(0);
  });
});
