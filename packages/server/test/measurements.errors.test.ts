import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { useAccount, useTestServer } from "./support/harness.js";
import { trpcErrorCode } from "./support/server.js";

const server = useTestServer();
const account = useAccount(server, { customer: { name: "Metered" } });

const measure = (body: unknown) => server.rest("POST", "/measurements", { token: account.token, body });
const valid = () => ({
  customerId: account.customerId,
  meterId: "api-calls",
  usageDate: { year: 2024, month: 2, day: 29 },
  value: 1,
});
/** The stored value of the caller's customer's measurement for a meter (read from the database: there is no GET). */
const storedValueOf = async (meterId: string) => {
  const docs = await server.service.db
    .collection("measurements")
    .find({ customerId: account.customerId, meterId })
    .toArray();
  expect(docs).toHaveLength(1);
  return docs[0]?.valueMicros;
};

const without = (field: string) => Object.fromEntries(Object.entries(valid()).filter(([key]) => key !== field));
const withDate = (usageDate: unknown) => ({ ...valid(), usageDate });
const withValue = (value: unknown) => ({ ...valid(), value });

describe("400 for invalid measurements, with the field named, and nothing stored", () => {
  it.each([
    ["customerId missing", () => without("customerId"), "customerId"],
    ["meterId missing", () => without("meterId"), "meterId"],
    ["usageDate missing", () => without("usageDate"), "usageDate"],
    ["value missing", () => without("value"), "value"],
    ["customerId a number", () => ({ ...valid(), customerId: 5 }), "customerId"],
    ["customerId empty", () => ({ ...valid(), customerId: "" }), "customerId"],
    ["customerId too long", () => ({ ...valid(), customerId: "c".repeat(201) }), "customerId"],
    ["customerId an object", () => ({ ...valid(), customerId: { $ne: null } }), "customerId"],
    ["meterId a number", () => ({ ...valid(), meterId: 7 }), "meterId"],
    ["meterId empty", () => ({ ...valid(), meterId: "" }), "meterId"],
    ["meterId blank", () => ({ ...valid(), meterId: "   " }), "meterId"],
    ["meterId too long", () => ({ ...valid(), meterId: "m".repeat(201) }), "meterId"],
    ["usageDate a string", () => withDate("2024-02-29"), "usageDate"],
    ["usageDate null", () => withDate(null), "usageDate"],
    ["year a string", () => withDate({ year: "2024", month: 2, day: 1 }), "usageDate.year"],
    ["month missing", () => withDate({ year: 2024, day: 1 }), "usageDate.month"],
    ["2023-02-29", () => withDate({ year: 2023, month: 2, day: 29 }), "usageDate.day"],
    ["2024-04-31", () => withDate({ year: 2024, month: 4, day: 31 }), "usageDate.day"],
    ["2100-02-29 (not a leap year)", () => withDate({ year: 2100, month: 2, day: 29 }), "usageDate.day"],
    ["day 0", () => withDate({ year: 2024, month: 1, day: 0 }), "usageDate.day"],
    ["day 32", () => withDate({ year: 2024, month: 1, day: 32 }), "usageDate.day"],
    ["month 0", () => withDate({ year: 2024, month: 0, day: 1 }), "usageDate.month"],
    ["month 13", () => withDate({ year: 2024, month: 13, day: 1 }), "usageDate.month"],
    ["year 1999", () => withDate({ year: 1999, month: 12, day: 31 }), "usageDate.year"],
    ["year 3000", () => withDate({ year: 3000, month: 1, day: 1 }), "usageDate.year"],
    ["fractional day", () => withDate({ year: 2024, month: 1, day: 1.5 }), "usageDate.day"],
    ["unknown usageDate field", () => withDate({ year: 2024, month: 1, day: 1, hour: 3 }), "usageDate.hour"],
    ["negative value", () => withValue(-1), "value"],
    ["negative micro value", () => withValue(-0.000001), "value"],
    ["value above 1e9", () => withValue(1_000_000_000.000001), "value"],
    ["7 decimals", () => withValue(0.0000001), "value"],
    ["7 decimals on a large value", () => withValue(1.1234567), "value"],
    ["value 'NaN'", () => withValue("NaN"), "value"],
    ["value 'Infinity'", () => withValue("Infinity"), "value"],
    ["value '5'", () => withValue("5"), "value"],
    ["value null", () => withValue(null), "value"],
    ["value true", () => withValue(true), "value"],
    ["unknown field", () => ({ ...valid(), unit: "requests" }), "unit"],
    ["response-only id", () => ({ ...valid(), id: "0123456789abcdef01234567" }), "id"],
    ["response-only createdAt", () => ({ ...valid(), createdAt: "2024-01-01T00:00:00Z" }), "createdAt"],
  ])("%s", async (_, body, path) => {
    const response = await measure(body());
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.issues.map((issue: { path: string }) => issue.path)).toContain(path);
    expect(await server.service.db.collection("measurements").countDocuments({ meterId: valid().meterId })).toBe(0);
  });

  it("400 for an array body, an empty body and malformed JSON; 415 for a non-JSON body", async () => {
    expectError(await measure([valid()]), 400, "BAD_REQUEST");
    expectError(await measure({}), 400, "BAD_REQUEST");
    expectError(await measure('{"customerId": "x"'), 400, "BAD_REQUEST");
    const text = await server.rest("POST", "/measurements", {
      token: account.token,
      body: "value=1",
      headers: { "content-type": "text/plain" },
    });
    expectError(text, 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  it("401 without a token, before any validation", async () => {
    expectError(await server.rest("POST", "/measurements", { body: valid() }), 401, "UNAUTHORIZED");
    expectError(await server.rest("POST", "/measurements", { body: {} }), 401, "UNAUTHORIZED");
  });
});

describe("404 for customers outside the caller's account", () => {
  it.each([
    ["an unknown id", "0123456789abcdef01234567"],
    ["a string that is no id", "nobody"],
    ["an operator-like string", '{"$ne":null}'],
  ])("404 Customer not found for %s", async (_, unknown) => {
    const response = await measure({ ...valid(), customerId: unknown });
    expectError(response, 404, "NOT_FOUND");
    expect(response.body.message).toBe("Customer not found");
  });
});

describe("measurement errors over tRPC carry the same codes", () => {
  it("BAD_REQUEST for invalid input, also after REST requests ran (no coercion of body numbers)", async () => {
    await measure({ ...valid(), meterId: "warm-up" });
    const client = server.trpc(account.token);
    const create = (input: unknown) =>
      client.measurements.create.mutate(input as Parameters<typeof client.measurements.create.mutate>[0]);
    expect(await trpcErrorCode(create(without("value")))).toBe("BAD_REQUEST");
    expect(await trpcErrorCode(create(withValue("5")))).toBe("BAD_REQUEST");
    expect(await trpcErrorCode(create(withValue(1.1234567)))).toBe("BAD_REQUEST");
    expect(await trpcErrorCode(create(withDate({ year: 2023, month: 2, day: 29 })))).toBe("BAD_REQUEST");
    expect(await trpcErrorCode(create(withDate({ year: "2024", month: 2, day: 1 })))).toBe("BAD_REQUEST");
    expect(await trpcErrorCode(create({ ...valid(), extra: 1 }))).toBe("BAD_REQUEST");
  });

  it("UNAUTHORIZED without a token, and the stored value is unchanged", async () => {
    const key = {
      customerId: account.customerId,
      meterId: "isolated-trpc",
      usageDate: { year: 2024, month: 3, day: 4 },
    };
    await server.trpc(account.token).measurements.create.mutate({ ...key, value: 8 });
    expect(await trpcErrorCode(server.trpc().measurements.create.mutate({ ...key, value: 9 }))).toBe("UNAUTHORIZED");
    expect(await storedValueOf("isolated-trpc")).toBe(8_000_000);
  });
});
