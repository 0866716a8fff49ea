import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";

let server: TestServer;
let token: string;
let accountId: string;
let customerId: string;

beforeAll(async () => {
  server = await startTestServer();
  ({ token, accountId } = await server.newAccount());
  customerId = (await server.rest("POST", "/customers", { token, body: { name: "Metered" } })).body.customer.id;
});
afterAll(() => server.close());

const measure = (body: unknown, as = token) => server.rest("POST", "/measurements", { token: as, body });
const day = (year: number, month: number, dayOfMonth: number) => ({ year, month, day: dayOfMonth });
const storedCount = (filter: Record<string, unknown>) => server.service.db.collection("measurements").countDocuments(filter);
const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("measurements over REST", () => {
  it("creates a measurement: 200 with id, timestamps and the fields sent", async () => {
    const input = { customerId, meterId: "api-calls", usageDate: day(2024, 2, 29), value: 12.345678 };
    const { status, body } = await measure(input);
    expect(status).toBe(200);
    expect(body.measurement).toEqual({ ...input, id: expect.stringMatching(/^[0-9a-f]{24}$/), createdAt: expect.any(String), updatedAt: expect.any(String) });
    expect(body.measurement.createdAt).toBe(body.measurement.updatedAt);
    expect(new Date(body.measurement.createdAt).toISOString()).toBe(body.measurement.createdAt);
  });

  it("replaces the value of the same day in place: same id, createdAt kept, updatedAt later, 200 again", async () => {
    const key = { customerId, meterId: "storage", usageDate: day(2024, 3, 1) };
    const first = (await measure({ ...key, value: 10 })).body.measurement;
    await pause();
    const { status, body } = await measure({ ...key, value: 7.5 });
    expect(status).toBe(200);
    expect(body.measurement).toMatchObject({ ...key, id: first.id, value: 7.5, createdAt: first.createdAt });
    expect(body.measurement.updatedAt > first.updatedAt).toBe(true);
    expect(await storedCount({ meterId: "storage" })).toBe(1);
  });

  it("keeps different meters, days and customers apart", async () => {
    const other = (await server.rest("POST", "/customers", { token, body: { name: "Other metered" } })).body.customer.id;
    const base = { customerId, meterId: "seats", usageDate: day(2024, 5, 10), value: 1 };
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
    const lower = (await measure({ ...key, customerId, value: 1 })).body.measurement;
    const { status, body } = await measure({ ...key, customerId: customerId.toUpperCase(), value: 2 });
    expect(status).toBe(200);
    expect(body.measurement).toMatchObject({ id: lower.id, customerId, value: 2 });
  });

  it("accepts the bounds: value 0, value 1e9, 6 decimals, years 2000 and 2999, December 31st", async () => {
    const cases = [
      { meterId: "zero", usageDate: day(2000, 1, 1), value: 0 },
      { meterId: "max", usageDate: day(2999, 12, 31), value: 1e9 },
      { meterId: "micro", usageDate: day(2024, 6, 30), value: 0.000001 },
      { meterId: "six-decimals", usageDate: day(2024, 6, 30), value: 999999999.999999 },
    ];
    for (const input of cases) {
      const { status, body } = await measure({ customerId, ...input });
      expect(status).toBe(200);
      expect(body.measurement).toMatchObject(input);
    }
  });

  it("30 concurrent writes for one day store exactly one measurement holding one of the values sent", async () => {
    const key = { customerId, meterId: "burst", usageDate: day(2024, 7, 4) };
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
    const client = server.trpc(token);
    const key = { customerId, meterId: "trpc", usageDate: day(2024, 8, 1) };
    const { measurement } = await client.measurements.create.mutate({ ...key, value: 1.5 });
    expect(measurement).toMatchObject({ ...key, value: 1.5 });
    await pause();
    const replaced = (await client.measurements.create.mutate({ ...key, value: 2.5 })).measurement;
    expect(replaced).toMatchObject({ id: measurement.id, value: 2.5, createdAt: measurement.createdAt });
    expect(replaced.updatedAt > measurement.updatedAt).toBe(true);
  });

  it("concurrent writes for one day also converge on one measurement", async () => {
    const client = server.trpc(token);
    const key = { customerId, meterId: "trpc-burst", usageDate: day(2024, 8, 2) };
    const values = Array.from({ length: 30 }, (_, i) => i * 1.5);
    const results = await Promise.all(values.map((value) => client.measurements.create.mutate({ ...key, value })));
    expect(new Set(results.map((r) => r.measurement.id)).size).toBe(1);
    for (const { measurement } of results) expect(values).toContain(measurement.value);
    expect(await storedCount({ meterId: "trpc-burst" })).toBe(1);
  });
});

// The billing engine's read; it has no endpoint of its own yet, so it is exercised on the repository.
describe("sumByMeter", () => {
  const sum = (customer: string, meterId: string, from: string, to: string, account = accountId) =>
    server.service.repositories.measurements.sumByMeter(account, customer, meterId, from, to);

  it("sums the days in [from, to) of one meter of one customer, exactly, in micro-units", async () => {
    const other = (await server.rest("POST", "/customers", { token, body: { name: "Summed other" } })).body.customer.id;
    const write = (usageDate: object, value: number, meterId = "sum", customer = customerId) => measure({ customerId: customer, meterId, usageDate, value });
    await write(day(2024, 9, 30), 1000); // before the range
    await write(day(2024, 10, 1), 0.1);
    await write(day(2024, 10, 15), 0.2);
    await write(day(2024, 10, 15), 0.2); // a replacement counts once
    await write(day(2024, 10, 31), 3.000001);
    await write(day(2024, 11, 1), 1000); // the exclusive end
    await write(day(2024, 10, 2), 1000, "sum-other-meter");
    await write(day(2024, 10, 2), 1000, "sum", other);
    expect(await sum(customerId, "sum", "2024-10-01", "2024-11-01")).toBe(3_300_001n);
    expect(await sum(customerId, "sum", "2024-10-02", "2024-10-15")).toBe(0n);
    expect(await sum(customerId.toUpperCase(), "sum", "2024-09-30", "2024-10-02")).toBe(1_000_100_000n);
  });

  it("stays exact past 2^53 micro-units", async () => {
    for (let dayOfMonth = 1; dayOfMonth <= 31; dayOfMonth += 1) {
      await measure({ customerId, meterId: "huge", usageDate: day(2024, 12, dayOfMonth), value: 999999999.999999 });
    }
    const total = await sum(customerId, "huge", "2024-12-01", "2025-01-01");
    expect(total).toBe(31n * 999_999_999_999_999n);
    expect(total > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
  });

  it("is 0 for another account, an unknown customer or a malformed id; refuses malformed days", async () => {
    const { accountId: otherAccount } = await server.newAccount();
    await measure({ customerId, meterId: "scoped", usageDate: day(2024, 1, 5), value: 5 });
    expect(await sum(customerId, "scoped", "2024-01-01", "2024-02-01")).toBe(5_000_000n);
    expect(await sum(customerId, "scoped", "2024-01-01", "2024-02-01", otherAccount)).toBe(0n);
    expect(await sum("0123456789abcdef01234567", "scoped", "2024-01-01", "2024-02-01")).toBe(0n);
    expect(await sum('{"$ne":null}', "scoped", "2024-01-01", "2024-02-01")).toBe(0n);
    await expect(sum(customerId, "scoped", "2024-1-1", "2024-02-01")).rejects.toThrow(RangeError);
  });
});
