import type { Event, EventInput } from "@billing/shared";
import { describe, expect, it } from "vitest";
import { useTestServer } from "./support/harness.js";

const server = useTestServer();

const DAY = "2024-03-01";
const event = (ref: string, overrides: Partial<EventInput> = {}): EventInput => ({
  name: "api_call",
  timestamp: `${DAY}T12:00:00.000Z`,
  customerAlias: "acme",
  ref,
  ...overrides,
});

const ingest = (token: string, events: unknown[]) => server.rest("POST", "/events", { token, body: { events } });

const query = async (token: string, params: Record<string, string>) => {
  const response = await server.rest("GET", `/events?${new URLSearchParams(params)}`, { token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.events as Event[];
};

const wholeDay = { startTime: `${DAY}T00:00:00Z`, endTime: "2024-03-02T00:00:00Z", limit: "1000" };

describe("ingesting and querying events over REST", () => {
  it("stores every field and returns it, with data keys that look like operators or paths kept as data", async () => {
    const { token } = await server.newAccount();
    const data = { $gt: "1", "a.b": "two", $set: '{"x":1}', plain: "" };
    const response = await ingest(token, [
      event("r-1", { timestamp: `${DAY}T14:30:00.5+02:00`, name: "Login", customerAlias: "acme-eu", data }),
      event("r-2", { timestamp: `${DAY}T13:00:00Z` }),
    ]);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ stored: 2, duplicates: [] });

    const [withData, withoutData] = await query(token, wholeDay);
    expect(withData).toEqual({
      name: "Login",
      timestamp: `${DAY}T12:30:00.500Z`,
      customerAlias: "acme-eu",
      ref: "r-1",
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      data,
    });
    expect(withData!.createdAt).toBe(withData!.updatedAt);
    expect(new Date(withData!.createdAt).toISOString()).toBe(withData!.createdAt);
    expect(withoutData).toMatchObject({ ref: "r-2", data: {} });
  });

  it("does not store a re-sent ref again and reports it as a duplicate", async () => {
    const { token } = await server.newAccount();
    expect((await ingest(token, [event("a"), event("b")])).body).toEqual({ stored: 2, duplicates: [] });
    const resent = await ingest(token, [event("b", { name: "changed" }), event("c"), event("a")]);
    expect(resent.status).toBe(200);
    expect(resent.body).toEqual({ stored: 1, duplicates: ["b", "a"] });
    const stored = await query(token, wholeDay);
    expect(stored.map((e) => e.ref).sort()).toEqual(["a", "b", "c"]);
    expect(stored.find((e) => e.ref === "b")!.name).toBe("api_call");
  });

  it("stores a ref repeated within one batch once, the first occurrence winning", async () => {
    const { token } = await server.newAccount();
    const response = await ingest(token, [
      event("x", { name: "first" }),
      event("y"),
      event("x", { name: "second" }),
      event("x"),
    ]);
    expect(response.body).toEqual({ stored: 2, duplicates: ["x", "x"] });
    const stored = await query(token, wholeDay);
    expect(stored.filter((e) => e.ref === "x").map((e) => e.name)).toEqual(["first"]);
  });

  it("stores each event once under 10 concurrent re-sends of the same batch", async () => {
    const { token } = await server.newAccount();
    const batch = Array.from({ length: 20 }, (_, i) => event(`c-${i}`));
    const responses = await Promise.all(Array.from({ length: 10 }, () => ingest(token, batch)));
    for (const { status, body } of responses) {
      expect(status).toBe(200);
      expect(body.stored + body.duplicates.length).toBe(batch.length);
    }
    expect(responses.reduce((sum, { body }) => sum + body.stored, 0)).toBe(batch.length);
    const stored = await query(token, wholeDay);
    expect(stored.map((e) => e.ref).sort()).toEqual(batch.map((e) => e.ref).sort());
  });

  it("accepts a batch of 1000 events", async () => {
    const { token } = await server.newAccount();
    const batch = Array.from({ length: 1000 }, (_, i) => event(`bulk-${i}`, { data: { i: String(i) } }));
    const response = await ingest(token, batch);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ stored: 1000, duplicates: [] });
    expect(await query(token, wholeDay)).toHaveLength(1000);
  });

  it("accepts data at its bounds: 100 keys of 200 characters, values of 1000", async () => {
    const { token } = await server.newAccount();
    const data = Object.fromEntries(
      Array.from({ length: 100 }, (_, i) => [String(i).padStart(200, "k"), "v".repeat(1000)]),
    );
    expect((await ingest(token, [event("big", { data })])).body).toEqual({ stored: 1, duplicates: [] });
    expect((await query(token, wholeDay))[0]!.data).toEqual(data);
  });

  it("returns events with startTime ≤ timestamp < endTime, in timestamp order", async () => {
    const { token } = await server.newAccount();
    await ingest(token, [
      event("at-end", { timestamp: "2024-03-01T11:00:00Z" }),
      event("inside", { timestamp: "2024-03-01T10:30:00Z" }),
      event("at-start", { timestamp: "2024-03-01T10:00:00Z" }),
      event("before", { timestamp: "2024-03-01T09:59:59.999Z" }),
      event("last-ms", { timestamp: "2024-03-01T10:59:59.999Z" }),
    ]);
    const window = { startTime: "2024-03-01T10:00:00Z", endTime: "2024-03-01T11:00:00Z" };
    expect((await query(token, window)).map((e) => e.ref)).toEqual(["at-start", "inside", "last-ms"]);
    // The same instants written with an offset select the same events.
    const withOffset = { startTime: "2024-03-01T11:00:00+01:00", endTime: "2024-03-01T12:00:00+01:00" };
    expect((await query(token, withOffset)).map((e) => e.ref)).toEqual(["at-start", "inside", "last-ms"]);
    expect(await query(token, { startTime: window.startTime, endTime: window.startTime })).toEqual([]);
  });

  it("filters by exact event name", async () => {
    const { token } = await server.newAccount();
    await ingest(token, [
      event("1", { name: "login" }),
      event("2", { name: "logout" }),
      event("3", { name: "login" }),
      event("4", { name: "Login" }),
    ]);
    expect((await query(token, { ...wholeDay, eventName: "login" })).map((e) => e.ref)).toEqual(["1", "3"]);
    expect(await query(token, { ...wholeDay, eventName: "log" })).toEqual([]);
  });

  it("pages by the id of the last event, each event once, across events sharing a timestamp", async () => {
    const { token } = await server.newAccount();
    const timestamps = [
      "10:00:00",
      "10:00:00",
      "10:00:00",
      "10:00:00",
      "10:00:00",
      "11:00:00",
      "11:00:00",
      "09:00:00",
      "12:00:00",
      "11:00:00",
      "10:00:00",
    ];
    // Two batches, so ids and timestamps are not in the same order.
    await ingest(
      token,
      timestamps
        .slice(0, 6)
        .map((time, i) => event(`p-${i}`, { timestamp: `${DAY}T${time}Z`, name: i % 2 ? "odd" : "even" })),
    );
    await ingest(
      token,
      timestamps
        .slice(6)
        .map((time, i) => event(`p-${i + 6}`, { timestamp: `${DAY}T${time}Z`, name: i % 2 ? "even" : "odd" })),
    );

    const all = await query(token, wholeDay);
    expect(all).toHaveLength(timestamps.length);
    const byTimestampThenId = [...all].sort(
      (a, b) => a.timestamp.localeCompare(b.timestamp) || a.id.localeCompare(b.id),
    );
    expect(all).toEqual(byTimestampThenId);

    for (const filter of [{}, { eventName: "even" }] as Record<string, string>[]) {
      const expected = all
        .filter((e) => filter.eventName === undefined || e.name === filter.eventName)
        .map((e) => e.id);
      const seen: string[] = [];
      let requests = 0;
      let cursor: string | undefined;
      for (;;) {
        const page = await query(token, { ...wholeDay, limit: "3", ...filter, ...(cursor && { cursor }) });
        requests += 1;
        seen.push(...page.map((e) => e.id));
        if (page.length < 3) break;
        cursor = page.at(-1)!.id;
      }
      expect(seen).toEqual(expected);
      expect(requests).toBe(Math.floor(expected.length / 3) + 1);
    }
  });

  it("returns 10 events by default and up to 1000 with limit=1000", async () => {
    const { token } = await server.newAccount();
    await ingest(
      token,
      Array.from({ length: 12 }, (_, i) => event(`d-${i}`)),
    );
    const { startTime, endTime } = wholeDay;
    expect(await query(token, { startTime, endTime })).toHaveLength(10);
    expect(await query(token, { startTime, endTime, limit: "1" })).toHaveLength(1);
    expect(await query(token, { startTime, endTime, limit: "1000" })).toHaveLength(12);
  });
});

describe("events over tRPC", () => {
  it("ingests and queries through the same procedures", async () => {
    const { token } = await server.newAccount();
    const client = server.trpc(token);
    const data = { $where: "1", "x.y": "z" };
    expect(await client.events.ingest.mutate({ events: [event("t-1", { data }), event("t-2")] })).toEqual({
      stored: 2,
      duplicates: [],
    });
    expect(await client.events.ingest.mutate({ events: [event("t-1")] })).toEqual({ stored: 0, duplicates: ["t-1"] });
    const { events } = await client.events.query.query({
      startTime: wholeDay.startTime,
      endTime: wholeDay.endTime,
      limit: 1,
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ ref: "t-1", data });
    const next = await client.events.query.query({
      startTime: wholeDay.startTime,
      endTime: wholeDay.endTime,
      cursor: events[0]!.id,
    });
    expect(next.events.map((e) => e.ref)).toEqual(["t-2"]);
  });
});
