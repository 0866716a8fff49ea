import { describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, ValidationError } from "../src/index.js";
import { inSequence, newClient, rejectionOf, useTestServer, walk } from "./helpers.js";

const ctx = useTestServer();

describe("meters", () => {
  it("creates, gets by id and key, renames, and lists meters", async () => {
    const { client } = await newClient(ctx.server);
    const meter = await client.meters.create({ key: "api-calls", eventName: "api_call", aggregation: "COUNT" });
    expect(meter).toMatchObject({
      id: expect.any(String),
      key: "api-calls",
      eventName: "api_call",
      aggregation: "COUNT",
    });
    expect(await client.meters.get(meter.id)).toEqual(meter);
    expect(await client.meters.get("api-calls")).toEqual(meter);
    const renamed = await client.meters.update("api-calls", { displayName: "API calls" });
    expect(renamed).toMatchObject({ id: meter.id, displayName: "API calls", aggregation: "COUNT" });

    await inSequence(4, (index) =>
      client.meters.create({ key: `m${index}`, eventName: "e", aggregation: "SUM", valueProperty: "v" }),
    );
    expect((await client.meters.list({ limit: 2 })).total).toBe(5);
    const { pageSizes, ids } = await walk(client.meters.listAll({ limit: 2 }), (page) => page.meters);
    expect(pageSizes).toEqual([2, 2, 1]);
    expect(ids[0]).toBe(meter.id);
  });

  it("rejects a duplicate key, a bad meter and an unknown one with typed errors", async () => {
    const { client } = await newClient(ctx.server);
    await client.meters.create({ key: "k", eventName: "e", aggregation: "COUNT" });
    expect(await rejectionOf(client.meters.create({ key: "k", eventName: "e", aggregation: "COUNT" }))).toBeInstanceOf(
      ConflictError,
    );
    const invalid = await rejectionOf(client.meters.create({ key: "v", eventName: "e", aggregation: "MAX" }));
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).issues).toEqual([{ path: "valueProperty", message: "required for MAX" }]);
    expect(await rejectionOf(client.meters.get("nothing"))).toBeInstanceOf(NotFoundError);
  });
});

describe("usage and event attribution", () => {
  it("reads a customer's usage of a meter and explains each event", async () => {
    const { client } = await newClient(ctx.server);
    const customer = await client.customers.create({ name: "Acme", aliases: ["acme"] });
    await client.meters.create({ key: "gb", eventName: "storage", aggregation: "SUM", valueProperty: "gb" });
    await client.events.ingest([
      { ref: "a", name: "storage", timestamp: "2024-05-01T10:00:00Z", customerAlias: "acme", data: { gb: "1.25" } },
      { ref: "b", name: "storage", timestamp: "2024-05-02T10:00:00Z", customerAlias: "acme", data: { gb: "2" } },
      { ref: "c", name: "storage", timestamp: "2024-05-02T11:00:00Z", customerAlias: "acme", data: { gb: "lots" } },
    ]);
    const usage = await client.usage.get({
      customerId: customer.id,
      meterKey: "gb",
      startDate: "2024-05-01",
      endDate: "2024-06-01",
    });
    expect(usage).toEqual({
      customerId: customer.id,
      meterKey: "gb",
      aggregation: "SUM",
      value: 3.25, // 1.25 + 2; "lots" is not a number
      days: [
        { date: "2024-05-01", value: 1.25, source: "EVENTS" },
        { date: "2024-05-02", value: 2, source: "EVENTS" },
      ],
    });
    const { events } = await client.events.query({
      startTime: "2024-05-01T00:00:00Z",
      endTime: "2024-06-01T00:00:00Z",
    });
    const lots = events.find((event) => event.ref === "c")!;
    expect(await client.events.explain(lots.id)).toEqual({
      event: lots,
      attribution: { customerId: customer.id, meters: [{ key: "gb", counted: false, reason: "VALUE_NOT_A_NUMBER" }] },
    });
    expect(await rejectionOf(client.events.explain("0123456789abcdef01234567"))).toBeInstanceOf(NotFoundError);
  });
});
