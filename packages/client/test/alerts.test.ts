import { describe, expect, it } from "vitest";
import { NotFoundError, ValidationError } from "../src/index.js";
import { newClient, rejectionOf, useTestServer, walk } from "./helpers.js";

const ctx = useTestServer();

describe("alerts", () => {
  it("creates, gets, lists and deletes alerts; refuses bad thresholds, unknown meters with typed errors", async () => {
    const { client } = await newClient(ctx.server);
    await client.meters.create({ key: "calls", eventName: "api_call", aggregation: "COUNT" });
    const customer = await client.customers.create({ name: "Acme", externalId: "acme" });
    const alert = await client.alerts.create({
      customerId: "acme",
      meterKey: "calls",
      thresholds: [10, 20],
      period: "DAY",
    });
    expect(alert).toMatchObject({ customerId: customer.id, meterKey: "calls", thresholds: [10, 20], period: "DAY" });
    expect(await client.alerts.get(alert.id)).toEqual(alert);
    const every = await client.alerts.create({ meterKey: "calls", thresholds: [1], period: "CYCLE" });
    expect(every.customerId).toBeNull();
    const { ids } = await walk(client.alerts.listAll({ limit: 1 }), (page) => page.alerts);
    expect(ids).toEqual([alert.id, every.id]);
    expect(await client.alerts.delete(alert.id)).toEqual(alert);
    expect(await rejectionOf(client.alerts.get(alert.id))).toBeInstanceOf(NotFoundError);
    const decreasing = await rejectionOf(
      client.alerts.create({ meterKey: "calls", thresholds: [2, 1], period: "DAY" }),
    );
    expect(decreasing).toBeInstanceOf(ValidationError);
    expect((decreasing as ValidationError).issues).toEqual([
      { path: "thresholds.1", message: "must be greater than the previous threshold" },
    ]);
    expect(
      await rejectionOf(client.alerts.create({ meterKey: "nope", thresholds: [1], period: "DAY" })),
    ).toBeInstanceOf(NotFoundError);
  });
});

describe("customers.entitlements", () => {
  it("reads the limit of the committed product and the usage of its cycle", async () => {
    const { client } = await newClient(ctx.server);
    await client.meters.create({ key: "calls", eventName: "api_call", aggregation: "COUNT" });
    const customer = await client.customers.create({ name: "Acme", aliases: ["acme"] });
    const now = new Date();
    await client.contracts.create({
      customerId: customer.id,
      name: "Plan",
      startDate: new Date(Date.UTC(now.getUTCFullYear() - 1, 0, 1)).toISOString(),
      products: [
        {
          displayName: "API",
          catalogProductId: "calls",
          scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 },
          commitment: { units: 3, price: 1, limitStrategy: "BLOCK" },
        },
      ],
    });
    const timestamp = new Date(Date.now() - 1000).toISOString();
    await client.events.ingest(
      ["a", "b", "c"].map((ref) => ({ ref, name: "api_call", timestamp, customerAlias: "acme" })),
    );
    // usage 3 ≥ limit 3 under BLOCK: no access, remaining 0.
    const entitlement = await client.customers.entitlement(customer.id, "calls");
    expect(entitlement).toMatchObject({ meterKey: "calls", hasAccess: false, usage: 3, limit: 3, remaining: 0 });
    expect(await client.customers.entitlements(customer.id)).toEqual([entitlement]);
    expect(await rejectionOf(client.customers.entitlement(customer.id, "nope"))).toBeInstanceOf(NotFoundError);
  });
});
