import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { useAccount, useTestServer } from "./support/harness.js";

const server = useTestServer();
const account = useAccount(server);

const create = (body: unknown, as = account.token) => server.rest("POST", "/meters", { token: as, body });
const storedMeters = () => server.service.db.collection("meters").countDocuments();

describe("meters over REST", () => {
  it("creates a meter: 201 with id, the fields (key trimmed) and timestamps; gets it by id and by key", async () => {
    const input = {
      key: "  api-calls ",
      displayName: "API calls",
      eventName: "api_call",
      aggregation: "SUM",
      valueProperty: "count",
      filters: [{ property: "region", in: ["eu"] }],
    };
    const { status, body } = await create(input);
    expect(status).toBe(201);
    expect(body.meter).toEqual({
      ...input,
      key: "api-calls",
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      createdAt: expect.any(String),
      updatedAt: body.meter.createdAt,
    });
    expect((await server.rest("GET", `/meters/${body.meter.id}`, { token: account.token })).body.meter).toEqual(
      body.meter,
    );
    expect((await server.rest("GET", "/meters/api-calls", { token: account.token })).body.meter).toEqual(body.meter);
  });

  it("409 for a key already used in the account, also after trimming", async () => {
    await create({ key: "dup", eventName: "e", aggregation: "COUNT" });
    expectError(await create({ key: " dup", eventName: "other", aggregation: "COUNT" }), 409, "CONFLICT");
  });

  it("400 naming the field for bad meters, and nothing is stored", async () => {
    const before = await storedMeters();
    for (const [body, path] of [
      [{ key: "m", eventName: "e", aggregation: "SUM" }, "valueProperty"],
      [{ key: "m", eventName: "e", aggregation: "COUNT", valueProperty: "v" }, "valueProperty"],
      [{ key: "m", eventName: "e", aggregation: "AVERAGE" }, "aggregation"],
      [{ key: " ", eventName: "e", aggregation: "COUNT" }, "key"],
      [{ key: "m", eventName: "e", aggregation: "COUNT", filters: [{ property: "region", in: [] }] }, "filters.0.in"],
      [
        { key: "m", eventName: "e", aggregation: "COUNT", filters: [{ property: "", in: ["x"] }] },
        "filters.0.property",
      ],
      [{ key: "m", eventName: "e", aggregation: "COUNT", extra: 1 }, "extra"],
    ] as const) {
      const response = await create(body);
      expectError(response, 400, "BAD_REQUEST");
      expect(response.body.issues.map((issue: { path: string }) => issue.path)).toEqual([path]);
    }
    expect(await storedMeters()).toBe(before);
  });

  it("PATCH changes the display name only; any other field is refused with 400", async () => {
    const { meter } = (await create({ key: "renamed", eventName: "e", aggregation: "COUNT" })).body;
    const renamed = await server.rest("PATCH", `/meters/${meter.id}`, {
      token: account.token,
      body: { displayName: "Renamed" },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.meter).toMatchObject({ ...meter, displayName: "Renamed", updatedAt: expect.any(String) });
    const refused = await server.rest("PATCH", "/meters/renamed", {
      token: account.token,
      body: { displayName: "x", aggregation: "SUM" },
    });
    expectError(refused, 400, "BAD_REQUEST");
    expect((await server.rest("GET", "/meters/renamed", { token: account.token })).body.meter.aggregation).toBe(
      "COUNT",
    );
    expectError(
      await server.rest("PATCH", "/meters/nothing", { token: account.token, body: { displayName: "x" } }),
      404,
      "NOT_FOUND",
    );
  });

  it("lists the account's meters in pages, oldest first", async () => {
    const own = await server.newAccount();
    for (const key of ["a", "b", "c"]) await create({ key, eventName: "e", aggregation: "COUNT" }, own.token);
    const first = (await server.rest("GET", "/meters?limit=2", { token: own.token })).body;
    expect(first).toMatchObject({ total: 3, hasMore: true, nextCursor: expect.any(String) });
    expect(first.meters.map((meter: { key: string }) => meter.key)).toEqual(["a", "b"]);
    const second = (await server.rest("GET", `/meters?limit=2&cursor=${first.nextCursor}`, { token: own.token })).body;
    expect(second).toMatchObject({ total: 3, hasMore: false });
    expect(second.meters.map((meter: { key: string }) => meter.key)).toEqual(["c"]);
  });

  it("401 without a token", async () => {
    expectError(await server.rest("GET", "/meters"), 401, "UNAUTHORIZED");
  });
});
