import type { Event, EventInput } from "@billing/shared";
import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { useAccount, useTestServer } from "./support/harness.js";
import { trpcErrorCode } from "./support/server.js";

const server = useTestServer();
const account = useAccount(server);

const issuePaths = (body: { issues: { path: string }[] }) => body.issues.map((issue) => issue.path);

const event = (ref: string, overrides: Record<string, unknown> = {}) => ({
  name: "api_call",
  timestamp: "2024-05-01T12:00:00Z",
  customerAlias: "acme",
  ref,
  ...overrides,
});
const ingest = (events: unknown, as = account.token) => server.rest("POST", "/events", { token: as, body: { events } });

const window = "startTime=2024-05-01T00:00:00Z&endTime=2024-05-02T00:00:00Z";
const storedRefs = async (as = account.token, params = window) => {
  const response = await server.rest("GET", `/events?${params}&limit=1000`, { token: as });
  expect(response.status).toBe(200);
  return (response.body.events as Event[]).map((e) => e.ref);
};

describe("ingest errors", () => {
  it("400 for an empty batch, a missing events array and unknown top-level fields", async () => {
    expectError(await ingest([]), 400, "BAD_REQUEST");
    expectError(await server.rest("POST", "/events", { token: account.token, body: {} }), 400, "BAD_REQUEST");
    expectError(
      await server.rest("POST", "/events", { token: account.token, body: { events: [event("top")], extra: 1 } }),
      400,
      "BAD_REQUEST",
    );
    expect(await storedRefs()).not.toContain("top");
  });

  it("400 for 1001 events, and none of them stored", async () => {
    const response = await ingest(Array.from({ length: 1001 }, (_, i) => event(`over-${i}`)));
    expectError(response, 400, "BAD_REQUEST");
    expect(issuePaths(response.body)).toEqual(["events"]);
    expect((await storedRefs()).filter((ref) => ref.startsWith("over-"))).toEqual([]);
  });

  it("refuses a batch with invalid events at indexes 2 and 5 whole, naming both", async () => {
    const batch = Array.from({ length: 7 }, (_, i) => event(`mixed-${i}`));
    batch[2] = event("mixed-2", { name: "" });
    batch[5] = event("mixed-5", { timestamp: "yesterday", data: { n: 1 } });
    const response = await ingest(batch);
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.message).toBe("Invalid events at indexes 2, 5");
    expect(issuePaths(response.body)).toEqual(["events.2.name", "events.5.timestamp", "events.5.data.n"]);
    expect((await storedRefs()).filter((ref) => ref.startsWith("mixed-"))).toEqual([]);
    // Nothing of the refused batch counts as sent: fixed, it is stored in full.
    const fixed = batch.map((_, i) => event(`mixed-${i}`));
    expect((await ingest(fixed)).body).toEqual({ stored: 7, duplicates: [] });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["missing name", { name: undefined }, "events.0.name"],
    ["blank name", { name: "   " }, "events.0.name"],
    ["name over 200 characters", { name: "n".repeat(201) }, "events.0.name"],
    ["missing timestamp", { timestamp: undefined }, "events.0.timestamp"],
    ["a date without time", { timestamp: "2024-05-01" }, "events.0.timestamp"],
    ["an impossible date", { timestamp: "2024-13-01T00:00:00Z" }, "events.0.timestamp"],
    ["missing customerAlias", { customerAlias: undefined }, "events.0.customerAlias"],
    ["empty customerAlias", { customerAlias: "" }, "events.0.customerAlias"],
    ["missing ref", { ref: undefined }, "events.0.ref"],
    ["ref over 200 characters", { ref: "r".repeat(201) }, "events.0.ref"],
    ["a number as ref", { ref: 7 }, "events.0.ref"],
    ["data that is not an object", { data: "k=v" }, "events.0.data"],
    ["a non-string data value", { data: { k: true } }, "events.0.data.k"],
    ["a null data value", { data: { k: null } }, "events.0.data.k"],
    ["a nested data value", { data: { k: { $gt: "" } } }, "events.0.data.k"],
    ["a data value over 1000 characters", { data: { k: "v".repeat(1001) } }, "events.0.data.k"],
    ["a data key over 200 characters", { data: { ["k".repeat(201)]: "v" } }, `events.0.data.${"k".repeat(201)}`],
    ["an empty data key", { data: { "": "v" } }, "events.0.data."],
    [
      "more than 100 data keys",
      { data: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, "v"])) },
      "events.0.data",
    ],
    ["a response-only field", { id: "0123456789abcdef01234567" }, "events.0.id"],
  ])("400 for %s", async (_, overrides, path) => {
    const response = await ingest([event("field-check", overrides)]);
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.message).toBe("Invalid events at indexes 0");
    expect(issuePaths(response.body)).toEqual([path]);
    expect(await storedRefs()).not.toContain("field-check");
  });

  it("401 without a token, before validation", async () => {
    expectError(await server.rest("POST", "/events", { body: { events: [] } }), 401, "UNAUTHORIZED");
  });
});

describe("query errors", () => {
  it.each<[string, string, string]>([
    ["startTime after endTime", "startTime=2024-05-02T00:00:00Z&endTime=2024-05-01T00:00:00Z", "startTime"],
    [
      "startTime after endTime once offsets are applied",
      "startTime=2024-05-01T10:00:00-01:00&endTime=2024-05-01T10:30:00Z",
      "startTime",
    ],
    ["missing startTime", "endTime=2024-05-02T00:00:00Z", "startTime"],
    ["missing endTime", "startTime=2024-05-01T00:00:00Z", "endTime"],
    ["a malformed startTime", "startTime=May%201&endTime=2024-05-02T00:00:00Z", "startTime"],
    ["an empty eventName", `${window}&eventName=`, "eventName"],
    ["an eventName over 200 characters", `${window}&eventName=${"e".repeat(201)}`, "eventName"],
  ])("400 for %s", async (_, params, path) => {
    const response = await server.rest("GET", `/events?${params}`, { token: account.token });
    expectError(response, 400, "BAD_REQUEST");
    expect(issuePaths(response.body)).toEqual([path]);
  });

  it.each(["0", "1001", "-1", "2.5", "abc", ""])("400 for limit=%s", async (limit) => {
    const response = await server.rest("GET", `/events?${window}&limit=${limit}`, { token: account.token });
    expectError(response, 400, "BAD_REQUEST");
    expect(issuePaths(response.body)).toEqual(["limit"]);
  });

  it("400 for a cursor that is no id, 404 for an id that is not an event of this query", async () => {
    await ingest([event("cursor-in", { name: "in" }), event("cursor-late", { timestamp: "2024-06-01T00:00:00Z" })]);
    const late = (
      await server.rest("GET", "/events?startTime=2024-06-01T00:00:00Z&endTime=2024-06-02T00:00:00Z", {
        token: account.token,
      })
    ).body.events[0];
    const inWindow = (await server.rest("GET", `/events?${window}&eventName=in`, { token: account.token })).body
      .events[0];
    for (const [cursor, status, code] of [
      ["garbage", 400, "BAD_REQUEST"],
      [encodeURIComponent('{"$ne":null}'), 400, "BAD_REQUEST"],
      ["0123456789abcdef01234567", 404, "NOT_FOUND"],
      [late.id, 404, "NOT_FOUND"],
    ] as const) {
      const response = await server.rest("GET", `/events?${window}&cursor=${cursor}`, { token: account.token });
      expectError(response, status, code);
      expect(issuePaths(response.body)).toEqual(["cursor"]);
    }
    // An event of the window that the eventName filter excludes is not a position in that list either.
    expectError(
      await server.rest("GET", `/events?${window}&eventName=other&cursor=${inWindow.id}`, { token: account.token }),
      404,
      "NOT_FOUND",
    );
  });

  it("401 without a token, before validation", async () => {
    expectError(await server.rest("GET", "/events?limit=0"), 401, "UNAUTHORIZED");
  });
});

describe("event errors over tRPC carry the same codes", () => {
  const startTime = "2024-05-01T00:00:00Z";
  const endTime = "2024-05-02T00:00:00Z";

  it("BAD_REQUEST for invalid batches and queries, with the invalid events named", async () => {
    const client = server.trpc(account.token);
    const bad = [event("t-ok"), event("t-bad", { customerAlias: "" })] as EventInput[];
    await expect(client.events.ingest.mutate({ events: bad })).rejects.toMatchObject({
      message: "Invalid events at indexes 1",
      data: { code: "BAD_REQUEST", issues: [{ path: "events.1.customerAlias" }] },
    });
    expect(await storedRefs()).not.toContain("t-ok");
    expect(await trpcErrorCode(client.events.ingest.mutate({ events: [] }))).toBe("BAD_REQUEST");
    expect(await trpcErrorCode(client.events.query.query({ startTime: endTime, endTime: startTime }))).toBe(
      "BAD_REQUEST",
    );
    expect(await trpcErrorCode(client.events.query.query({ startTime, endTime, eventName: "" }))).toBe("BAD_REQUEST");
    expect(await trpcErrorCode(client.events.query.query({ startTime, endTime, limit: 1001 }))).toBe("BAD_REQUEST");
    expect(await trpcErrorCode(client.events.query.query({ startTime, endTime, cursor: "garbage" }))).toBe(
      "BAD_REQUEST",
    );
    expect(await trpcErrorCode(server.trpc().events.query.query({ startTime, endTime }))).toBe("UNAUTHORIZED");
  });
});
