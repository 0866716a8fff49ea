import { describe, expect, it } from "vitest";
import { ConflictError, ValidationError } from "../src/index.js";
import { newClient, PAGINATION, rejectionOf, useTestServer, walk } from "./helpers.js";

const ctx = useTestServer();

const at = (minute: number) => new Date(Date.UTC(2024, 0, 1, 0, minute)).toISOString();
const period = { startTime: "2024-01-01T00:00:00Z", endTime: "2024-01-02T00:00:00Z" };

describe("events", () => {
  it("ingests a batch idempotently per ref and reads it back by period and name", async () => {
    const { client } = await newClient(ctx.server);
    const result = await client.events.ingest([
      { name: "api.call", timestamp: at(2), customerAlias: "acme", ref: "r1", data: { route: "/x" } },
      { name: "login", timestamp: at(1), customerAlias: "acme", ref: "r2" },
      { name: "api.call", timestamp: at(3), customerAlias: "acme", ref: "r1" },
    ]);
    expect(result).toEqual({ stored: 2, duplicates: ["r1"] });
    expect(await client.events.ingest([{ name: "login", timestamp: at(5), customerAlias: "acme", ref: "r2" }])).toEqual(
      {
        stored: 0,
        duplicates: ["r2"],
      },
    );

    const { events } = await client.events.query(period);
    expect(events.map((e) => [e.ref, e.name, e.timestamp])).toEqual([
      ["r2", "login", at(1)],
      ["r1", "api.call", at(2)],
    ]);
    expect(events[0]).toMatchObject({ id: expect.any(String), customerAlias: "acme", data: {} });
    expect(events[1]!.data).toEqual({ route: "/x" });
    expect((await client.events.query({ ...period, eventName: "api.call" })).events.map((e) => e.ref)).toEqual(["r1"]);
    // endTime is exclusive
    expect((await client.events.query({ startTime: at(0), endTime: at(2) })).events.map((e) => e.ref)).toEqual(["r2"]);
  });

  it("voids an event once: kept, listed with its void, explained; a second void is a ConflictError", async () => {
    const { client } = await newClient(ctx.server);
    await client.events.ingest([{ name: "login", timestamp: at(1), customerAlias: "acme", ref: "v1" }]);
    const [event] = (await client.events.query(period)).events;
    const voided = await client.events.void(event!.id, "sent by a test harness");
    expect(voided).toMatchObject({ eventId: event!.id, reason: "sent by a test harness" });
    expect(voided.voidedBy.type).toBe("token");
    expect((await client.events.query(period)).events[0]?.voided).toEqual(voided);
    expect((await client.events.explain(event!.id)).event.voided).toEqual(voided);
    expect(await rejectionOf(client.events.void(event!.id, "again"))).toBeInstanceOf(ConflictError);
  });

  it("refuses a batch with an invalid event whole, naming its index", async () => {
    const { client } = await newClient(ctx.server);
    const error = await rejectionOf(
      client.events.ingest([
        { name: "ok", timestamp: at(1), customerAlias: "a", ref: "good" },
        { name: "", timestamp: at(1), customerAlias: "a", ref: "bad" },
      ]),
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ message: "Invalid events at indexes 1", issues: [{ path: "events.1.name" }] });
    expect((await client.events.query(period)).events).toEqual([]);
  });

  it("walks every event of the period once, by timestamp, across pages", async () => {
    const { client } = await newClient(ctx.server);
    // Sent newest first: the order of reading is the timestamps', not the order of sending.
    const minutes = Array.from({ length: PAGINATION.count }, (_, i) => PAGINATION.count - i);
    const sent = minutes.map((minute) => ({
      name: minute % 2 ? "odd" : "even",
      timestamp: at(minute),
      customerAlias: "acme",
      ref: `ref-${minute}`,
    }));
    expect(await client.events.ingest(sent)).toEqual({ stored: PAGINATION.count, duplicates: [] });
    const refsInOrder = [...minutes].reverse().map((minute) => `ref-${minute}`);

    const items = [];
    for await (const event of client.events.queryAll({ ...period, limit: PAGINATION.limit })) items.push(event);
    expect(items.map((e) => e.ref)).toEqual(refsInOrder);

    const walked = await walk(client.events.queryAll({ ...period, limit: PAGINATION.limit }), (page) => page.events);
    expect(walked).toEqual({ pageSizes: PAGINATION.pageSizes, ids: items.map((e) => e.id) });
    expect((await client.events.queryAll({ ...period, limit: PAGINATION.limit }).toArray()).map((e) => e.id)).toEqual(
      items.map((e) => e.id),
    );

    const odd = await client.events.queryAll({ ...period, eventName: "odd", limit: PAGINATION.limit }).toArray();
    expect(odd.map((e) => e.ref)).toEqual(refsInOrder.filter((ref) => Number(ref.slice(4)) % 2 === 1));
  });
});

describe("backfills", () => {
  it("reverts a COMPLETED backfill once (keyed): its event voided; a second revert is a ConflictError", async () => {
    const { client } = await newClient(ctx.server);
    await client.meters.create({ key: "logins", eventName: "login", aggregation: "COUNT" });
    const event = { name: "login", timestamp: at(7), customerAlias: "acme", ref: "b1" };
    const opened = await client.backfills.create({
      meterKey: "logins",
      from: at(0),
      to: at(10),
      mode: "ADD",
      events: [event],
    });
    const tickUntil = async (status: string) => {
      for (let tick = 0; tick < 10 && (await client.backfills.get(opened.id)).status !== status; tick += 1)
        await ctx.server.service.upkeep.tick();
    };
    expect(await rejectionOf(client.backfills.revert(opened.id))).toBeInstanceOf(ConflictError); // PENDING
    await tickUntil("COMPLETED");
    expect(await client.backfills.revert(opened.id)).toMatchObject({ id: opened.id, status: "REVERTING" });
    await tickUntil("REVERTED");
    expect(await client.backfills.get(opened.id)).toMatchObject({ status: "REVERTED", counts: { reverted: 1 } });
    expect((await client.events.query(period)).events.find((e) => e.ref === "b1")?.voided?.reason).toContain(opened.id);
    expect(await rejectionOf(client.backfills.revert(opened.id))).toBeInstanceOf(ConflictError);
  });

  it("opens a backfill, holds events sent with its backfillId, commits it once (keyed)", async () => {
    const { client } = await newClient(ctx.server);
    await client.meters.create({ key: "logins", eventName: "login", aggregation: "COUNT" });
    const opened = await client.backfills.create({ meterKey: "logins", from: at(0), to: at(10), mode: "ADD" });
    expect(opened.status).toBe("OPEN");
    const events = [{ name: "login", timestamp: at(7), customerAlias: "acme", ref: "h1" }];
    expect(await client.events.ingest(events, { backfillId: opened.id })).toEqual({ stored: 1, duplicates: [] });
    expect((await client.events.query(period)).events).toEqual([]); // held apart
    expect(await client.backfills.commit(opened.id)).toMatchObject({ status: "PENDING", counts: { events: 1 } });
    expect(await rejectionOf(client.backfills.commit(opened.id))).toBeInstanceOf(ConflictError);
  });
});
