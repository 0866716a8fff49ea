import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { billingAccount } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

const server = useTestServer();

describe("GET /events/{eventId}: why an event was counted, or not", () => {
  it("names the customer and, per meter of the event's name, whether it counts and why not", async () => {
    const account = await billingAccount(server, { name: "Acme", aliases: ["acme"], externalId: "acme-ext" });
    await account.post(
      "/meters",
      {
        key: "eu-gb",
        eventName: "storage",
        aggregation: "SUM",
        valueProperty: "gb",
        filters: [{ property: "region", in: ["eu"] }],
      },
      201,
    );
    await account.post("/meters", { key: "uploads", eventName: "storage", aggregation: "COUNT" }, 201);
    await account.post(
      "/meters",
      { key: "files", eventName: "storage", aggregation: "UNIQUE_COUNT", valueProperty: "file" },
      201,
    );
    const sent = {
      counted: { region: "eu", gb: "1.5", file: "a" },
      filtered: { region: "us", gb: "1.5", file: "a" },
      missing: { region: "eu" },
      notNumber: { region: "eu", gb: "1,5", file: "b" },
    };
    await account.post("/events", {
      events: [
        ...Object.entries(sent).map(([ref, data]) => ({
          ref,
          name: "storage",
          timestamp: "2024-03-01T10:00:00Z",
          customerAlias: "acme",
          data,
        })),
        {
          ref: "byExternalId",
          name: "storage",
          timestamp: "2024-03-01T11:00:00Z",
          customerAlias: "acme-ext",
          data: sent.counted,
        },
        {
          ref: "stranger",
          name: "storage",
          timestamp: "2024-03-01T10:00:00Z",
          customerAlias: "nobody",
          data: sent.counted,
        },
        {
          ref: "measured",
          name: "storage",
          timestamp: "2024-03-02T10:00:00Z",
          customerAlias: "acme",
          data: sent.counted,
        },
        { ref: "unmetered", name: "page_view", timestamp: "2024-03-01T10:00:00Z", customerAlias: "acme" },
      ],
    });
    await account.measure("eu-gb", "2024-03-02", 3);
    const period = "startTime=2024-03-01T00:00:00Z&endTime=2024-03-03T00:00:00Z&limit=100";
    const { events } = (await server.rest("GET", `/events?${period}`, { token: account.token })).body;
    const idOf = (ref: string) => events.find((event: { ref: string }) => event.ref === ref).id as string;
    const explain = async (ref: string) => {
      const response = await server.rest("GET", `/events/${idOf(ref)}`, { token: account.token });
      expect(response.status).toBe(200);
      expect(response.body.event.ref).toBe(ref);
      return response.body.attribution;
    };
    const acme = account.customerId;
    expect(await explain("counted")).toEqual({
      customerId: acme,
      meters: [
        { key: "eu-gb", counted: true },
        { key: "uploads", counted: true },
        { key: "files", counted: true },
      ],
    });
    expect((await explain("byExternalId")).customerId).toBe(acme);
    expect((await explain("filtered")).meters[0]).toEqual({ key: "eu-gb", counted: false, reason: "FILTERED_OUT" });
    expect((await explain("missing")).meters).toEqual([
      { key: "eu-gb", counted: false, reason: "MISSING_VALUE" },
      { key: "uploads", counted: true },
      { key: "files", counted: false, reason: "MISSING_VALUE" },
    ]);
    // UNIQUE_COUNT counts any text: "1,5" is only refused where a number is read.
    expect((await explain("notNumber")).meters).toEqual([
      { key: "eu-gb", counted: false, reason: "VALUE_NOT_A_NUMBER" },
      { key: "uploads", counted: true },
      { key: "files", counted: true },
    ]);
    expect(await explain("stranger")).toEqual({
      customerId: null,
      meters: ["eu-gb", "uploads", "files"].map((key) => ({ key, counted: false, reason: "NO_CUSTOMER" })),
    });
    expect((await explain("measured")).meters[0]).toEqual({
      key: "eu-gb",
      counted: false,
      reason: "DAY_SET_BY_MEASUREMENT",
    });
    expect((await explain("measured")).meters[1]).toEqual({ key: "uploads", counted: true });
    expect(await explain("unmetered")).toEqual({ customerId: acme, meters: [], reason: "NO_METER" });

    // A meter created after the events counts them all the same.
    await account.post("/meters", { key: "page-views", eventName: "page_view", aggregation: "COUNT" }, 201);
    expect(await explain("unmetered")).toEqual({ customerId: acme, meters: [{ key: "page-views", counted: true }] });
  });

  it("404 for an unknown or malformed id", async () => {
    const owner = await billingAccount(server);
    expectError(await server.rest("GET", "/events/0123456789abcdef01234567", { token: owner.token }), 404, "NOT_FOUND");
    expectError(await server.rest("GET", "/events/not-an-id", { token: owner.token }), 404, "NOT_FOUND");
  });
});
