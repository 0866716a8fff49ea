import { MongoClient, ObjectId } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createRepositories } from "../src/repositories/index.js";

/**
 * What the service's writes ask of the engine the tests run on (in CI the embedded FerretDB, built with the edits in
 * tools/ferretdb/patches.json). FerretDB 1.24 kept each statement of an update command open until the command ended,
 * and its SQLite pool holds 100 connections: a command of 100 updates or more waited forever.
 */
let raw: MongoClient;
beforeAll(async () => {
  raw = new MongoClient(inject("mongodbUri"), { monitorCommands: true });
  await raw.connect();
});
afterAll(async () => {
  await raw.close();
});

describe("one write of many updates", () => {
  it("moves 150 schedules in one command, each once", { timeout: 30_000 }, async () => {
    // A database of the test's own: nothing of the service's reads these schedules.
    const db = raw.db(`engine-${new ObjectId().toHexString()}`);
    try {
      const accountId = new ObjectId().toHexString();
      const before = new Date("2024-01-01T00:00:00Z");
      const after = new Date("2024-02-01T01:00:00Z");
      const ids = Array.from({ length: 150 }, () => new ObjectId());
      await db
        .collection("billingSchedules")
        .insertMany(ids.map((_id) => ({ _id, accountId, nextDueAt: before, createdAt: before })));
      // One schedule already past the move: the write leaves it where it is.
      const ahead = new Date("2024-03-01T00:00:00Z");
      await db.collection("billingSchedules").updateOne({ _id: ids[0] }, { $set: { nextDueAt: ahead } });

      const commands: string[] = [];
      raw.on("commandStarted", ({ commandName }) => commands.push(commandName));
      await createRepositories(db).billingRuns.advanceMany(ids.map((contractId) => ({ contractId, nextDueAt: after })));

      const stored = await db.collection("billingSchedules").find({ accountId }).toArray();
      const at = new Map(stored.map(({ _id, nextDueAt }) => [_id.toHexString(), nextDueAt.toISOString()]));
      expect(at.get(ids[0]?.toHexString() ?? "")).toBe(ahead.toISOString());
      expect(ids.slice(1).filter((id) => at.get(id.toHexString()) !== after.toISOString())).toEqual([]);
      expect(commands.filter((name) => name === "update")).toHaveLength(1);
    } finally {
      await db.dropDatabase();
    }
  });
});
