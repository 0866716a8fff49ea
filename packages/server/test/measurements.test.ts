import { describe, expect, it } from "vitest";
import { useAccount, useTestServer } from "./support/harness.js";

const server = useTestServer();
const account = useAccount(server, { customer: { name: "Metered" } });

const measure = (body: unknown, as = account.token) => server.rest("POST", "/measurements", { token: as, body });
const day = (year: number, month: number, dayOfMonth: number) => ({ year, month, day: dayOfMonth });
const storedCount = (filter: Record<string, unknown>) =>
  server.service.db.collection("measurements").countDocuments(filter);
const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("measurements over REST", () => {
  it("creates a measurement: 200 with id, timestamps and the fields sent", async () => {
    const input = {
      customerId: account.customerId,
      meterId: "api-calls",
      usageDate: day(2024, 2, 29),
      value: 12.345678,
    };
    const { status, body } = await measure(input);
    expect(status).toBe(200);
    expect(body.measurement).toEqual({
      ...input,
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(body.measurement.createdAt).toBe(body.measurement.updatedAt);
    expect(new Date(body.measurement.createdAt).toISOString()).toBe(body.measurement.createdAt);
  });

  it("replaces the value of the same day in place: same id, createdAt kept, updatedAt later, 200 again", async () => {
    const key = { customerId: account.customerId, meterId: "storage", usageDate: day(2024, 3, 1) };
    const first = (await measure({ ...key, value: 10 })).body.measurement;
    await pause();
    const { status, body } = await measure({ ...key, value: 7.5 });
    expect(status).toBe(200);
    expect(body.measurement).toMatchObject({ ...key, id: first.id, value: 7.5, createdAt: first.createdAt });
    expect(body.measurement.updatedAt > first.updatedAt).toBe(true);
    expect(await storedCount({ meterId: "storage" })).toBe(1);
  });

  it("keeps different meters, days and customers apart", async () => {
    const other = (await server.rest("POST", "/customers", { token: account.token, body: { name: "Other metered" } }))
      .body.customer.id;
    const base = { customerId: account.customerId, meterId: "seats", usageDate: day(2024, 5, 10), value: 1 };
    const variants = [
      base,
      { ...base, meterId: "seats-eu", value: 2 },
      { ...base, usageDate: day(2024, 5, 11), value: 3 },
      { ...base, usageDate: day(2025, 5, 10), value: 4 },
      { ...base, customerId: other, value: 5 },
    ];
    const created = [];
    for (const variant of variants) created.push((await measure(variant)).body.measurement);
    expect(new Set(created.map((m) => m.id)).size).toBe(variants.length);
    expect(created.map((m) => m.value)).toEqual([1, 2, 3, 4, 5]);
  });

  it("treats an upper-case customer id as the same customer", async () => {
    const key = { meterId: "case", usageDate: day(2024, 1, 1) };
    const lower = (await measure({ ...key, customerId: account.customerId, value: 1 })).body.measurement;
    const { status, body } = await measure({ ...key, customerId: account.customerId.toUpperCase(), value: 2 });
    expect(status).toBe(200);
    expect(body.measurement).toMatchObject({ id: lower.id, customerId: account.customerId, value: 2 });
  });

  it("names the customer by its externalId as well, storing the customer's id", async () => {
    const { body } = await server.rest("POST", "/customers", {
      token: account.token,
      body: { name: "Metered by external id", externalId: "crm-metered" },
    });
    const key = { meterId: "by-external-id", usageDate: day(2024, 1, 1) };
    const byExternalId = (await measure({ ...key, customerId: "crm-metered", value: 1 })).body.measurement;
    expect(byExternalId.customerId).toBe(body.customer.id);
    const byId = (await measure({ ...key, customerId: body.customer.id, value: 2 })).body.measurement;
    expect(byId).toMatchObject({ id: byExternalId.id, value: 2 });
  });

  it("accepts the bounds: value 0, value 1e9, 6 decimals, years 2000 and 2999, December 31st", async () => {
    const cases = [
      { meterId: "zero", usageDate: day(2000, 1, 1), value: 0 },
      { meterId: "max", usageDate: day(2999, 12, 31), value: 1e9 },
      { meterId: "micro", usageDate: day(2024, 6, 30), value: 0.000001 },
      { meterId: "six-decimals", usageDate: day(2024, 6, 30), value: 999999999.999999 },
    ];
    for (const input of cases) {
      const { status, body } = await measure({ customerId: account.customerId, ...input });
      expect(status).toBe(200);
      expect(body.measurement).toMatchObject(input);
    }
  });

  it("30 concurrent writes for one day store exactly one measurement holding one of the values sent", async () => {
    const key = { customerId: account.customerId, meterId: "burst", usageDate: day(2024, 7, 4) };
    const values = Array.from({ length: 30 }, (_, i) => i + 0.25);
    const responses = await Promise.all(values.map((value) => measure({ ...key, value })));
    expect(responses.map((r) => r.status)).toEqual(values.map(() => 200));
    const ids = new Set(responses.map((r) => r.body.measurement.id));
    expect(ids.size).toBe(1);
    for (const { body } of responses) expect(values).toContain(body.measurement.value);
    expect(await storedCount({ meterId: "burst" })).toBe(1);
    const stored = await server.service.db.collection("measurements").findOne({ meterId: "burst" });
    expect(ids).toEqual(new Set([stored?._id.toHexString()]));
    expect(values.map((value) => value * 1_000_000)).toContain(stored?.valueMicros);
  });

  it("is documented as POST /measurements answering 200 with a Measurement", async () => {
    const { body } = await server.rest("GET", "/openapi.json");
    const operation = body.paths["/measurements"].post;
    expect(Object.keys(operation.responses)).toContain("200");
    expect(Object.keys(operation.responses)).not.toContain("201");
    expect(body.components.schemas.Measurement.properties).toHaveProperty("usageDate");
    const requestSchema = operation.requestBody.content["application/json"].schema;
    expect([...requestSchema.required].sort()).toEqual(["customerId", "meterId", "usageDate", "value"]);
  });
});

describe("measurements over tRPC", () => {
  it("creates and replaces through the same procedure", async () => {
    const client = server.trpc(account.token);
    const key = { customerId: account.customerId, meterId: "trpc", usageDate: day(2024, 8, 1) };
    const { measurement } = await client.measurements.create.mutate({ ...key, value: 1.5 });
    expect(measurement).toMatchObject({ ...key, value: 1.5 });
    await pause();
    const replaced = (await client.measurements.create.mutate({ ...key, value: 2.5 })).measurement;
    expect(replaced).toMatchObject({ id: measurement.id, value: 2.5, createdAt: measurement.createdAt });
    expect(replaced.updatedAt > measurement.updatedAt).toBe(true);
  });

  it("concurrent writes for one day also converge on one measurement", async () => {
    const client = server.trpc(account.token);
    const key = { customerId: account.customerId, meterId: "trpc-burst", usageDate: day(2024, 8, 2) };
    const values = Array.from({ length: 30 }, (_, i) => i * 1.5);
    const results = await Promise.all(values.map((value) => client.measurements.create.mutate({ ...key, value })));
    expect(new Set(results.map((r) => r.measurement.id)).size).toBe(1);
    for (const { measurement } of results) expect(values).toContain(measurement.value);
    expect(await storedCount({ meterId: "trpc-burst" })).toBe(1);
  });
});
