import { describe, expect, it } from "vitest";
import { NotFoundError, ValidationError } from "../src/index.js";
import { newClient, rejectionOf, storedMeasurements, unknownId, useTestServer } from "./helpers.js";

const ctx = useTestServer();

describe("measurements", () => {
  it("creates a day's measurement, then replaces its value in place", async () => {
    const { client, accountId } = await newClient(ctx.server);
    const { id: customerId } = await client.customers.create({ name: "Metered" });
    const usageDate = { year: 2024, month: 2, day: 29 };

    const created = await client.measurements.create({ customerId, meterId: "api-calls", usageDate, value: 12.5 });
    expect(created).toMatchObject({ id: expect.any(String), customerId, meterId: "api-calls", usageDate, value: 12.5 });
    expect(created.createdAt).toBe(created.updatedAt);

    const replaced = await client.measurements.create({ customerId, meterId: "api-calls", usageDate, value: 0.000001 });
    expect(replaced).toMatchObject({ id: created.id, createdAt: created.createdAt, value: 0.000001 });
    expect(await storedMeasurements(ctx.server, accountId, customerId, "api-calls", "2024-02-29")).toEqual({
      count: 1,
      micros: 1n,
    });

    const nextDay = await client.measurements.create({
      customerId,
      meterId: "api-calls",
      usageDate: { ...usageDate, month: 3, day: 1 },
      value: 3,
    });
    expect(nextDay.id).not.toBe(created.id);
  });

  it("refuses an impossible day and an unknown customer", async () => {
    const { client } = await newClient(ctx.server);
    const { id: customerId } = await client.customers.create({ name: "Metered" });
    const invalid = await rejectionOf(
      client.measurements.create({ customerId, meterId: "m", usageDate: { year: 2023, month: 2, day: 29 }, value: 1 }),
    );
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).issues).toEqual([
      { path: "usageDate.day", message: "not a day of that month" },
    ]);
    await expect(
      client.measurements.create({
        customerId: unknownId(),
        meterId: "m",
        usageDate: { year: 2024, month: 1, day: 1 },
        value: 1,
      }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});
