import {
  CONTRACT_DATE_PATTERN,
  CONTRACT_DATES,
  CURSOR_PATTERN,
  contractCreate,
  measurementCreate,
  NOT_BLANK,
} from "@billing/shared";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { useAccount, useOpenApiDocument, useTestServer } from "./support/harness.js";

/** The document states the rules the server enforces, so an outside tool's valid request is accepted and no other. */
const server = useTestServer();
const account = useAccount(server);
const document = useOpenApiDocument(server);

const bodySchema = (path: string, method = "post") => {
  const schema = document.paths[path][method].requestBody.content["application/json"].schema;
  return schema.$ref ? document.components.schemas[schema.$ref.split("/").pop()] : schema;
};

describe("amounts: at most 6 decimal places", () => {
  it("is `multipleOf: 0.000001` on every amount and quantity a caller sends", () => {
    const { Commitment, Pricing, PriceTier } = document.components.schemas;
    const priceVariants: any[] = Pricing.oneOf ?? Pricing.anyOf;
    const variantAmounts = priceVariants.flatMap(({ properties }) =>
      [properties.price, properties.packageSize].filter(Boolean),
    );
    // ONE_TIME, FLAT, PER_UNIT, PER_SEAT and PACKAGE's price, PACKAGE's packageSize
    expect(variantAmounts).toHaveLength(6);
    for (const schema of [
      bodySchema("/credits").properties.amount,
      bodySchema("/measurements").properties.value,
      Commitment.properties.units,
      Commitment.properties.price,
      Commitment.properties.overagePrice,
      ...variantAmounts,
      PriceTier.properties.unitPrice,
      PriceTier.properties.flatPrice,
    ]) {
      expect(schema).toMatchObject({ type: "number", multipleOf: 0.000001, maximum: 1_000_000_000 });
    }
  });

  it("refuses what is not a multiple (one issue), and takes the largest and smallest steps", async () => {
    const customerId = (await server.rest("POST", "/customers", { token: account.token, body: { name: "Steps" } })).body
      .customer.id;
    const grant = (amount: number) =>
      server.rest("POST", "/credits", { token: account.token, body: { customerId, amount, type: "Grant" } });
    for (const amount of [5e-324, 1e-7, 0.1234567, 230581387.5593315]) {
      const response = await grant(amount);
      expectError(response, 400, "BAD_REQUEST");
      expect(response.body.issues).toEqual([{ path: "amount", message: "at most 6 decimal places" }]);
    }
    expect((await grant(0.000001)).status).toBe(201);
    expect((await grant(999_999_999.999999)).status).toBe(201);
  });
});

describe("required text: not blank", () => {
  it("states as a pattern exactly the characters trim() keeps, so a blank name is invalid in both", () => {
    for (let code = 0; code <= 0xffff; code += 1) {
      const character = String.fromCharCode(code);
      expect(NOT_BLANK.test(character), `U+${code.toString(16)}`).toBe(character.trim() !== "");
    }
    expect(bodySchema("/customers").properties.name).toMatchObject({
      minLength: 1,
      maxLength: 200,
      pattern: NOT_BLANK.source,
    });
  });

  it("counts the length before trimming, as the document's maxLength does", async () => {
    const response = await server.rest("POST", "/customers", {
      token: account.token,
      body: { name: `${"x".repeat(199)}  ` },
    });
    expectError(response, 400, "BAD_REQUEST");
    expect(
      (await server.rest("POST", "/customers", { token: account.token, body: { name: ` ${"y".repeat(198)} ` } })).body
        .customer.name,
    ).toBe("y".repeat(198));
  });
});

describe("contract dates", () => {
  it("are documented with the pattern the server applies", () => {
    expect(bodySchema("/contracts").properties.startDate).toMatchObject({
      format: "date-time",
      pattern: CONTRACT_DATE_PATTERN.source,
    });
  });

  const accepts = (startDate: string) => contractCreate.safeParse({ startDate, customerId: "c", name: "n" }).success;

  it.each([
    ["1970-01-01T00:00:00Z", true],
    ["1970-01-01T08:00:00-05:00", true],
    ["1970-01-01T12:00:00+01:00", false], // 11:00 UTC, yet its offset is ahead of UTC on the first day
    ["1969-12-31T23:30:00-01:00", false],
    ["1970-01-02T00:00:00+14:00", true],
    ["2000-02-29T00:00:00Z", true],
    ["2100-02-29T00:00:00Z", false],
    ["2099-12-31T23:59:59.999Z", true],
    ["2099-12-31T23:00:00+05:00", true],
    ["2099-12-31T20:00:00-05:00", false],
    ["2100-01-01T00:30:00+01:00", false],
  ])("%s: %s", (date, valid) => {
    expect(accepts(date)).toBe(valid);
    expect(CONTRACT_DATE_PATTERN.test(date)).toBe(valid);
  });

  it("accepts exactly what the pattern matches, and every date it accepts is an instant within 1970..2099 UTC", () => {
    const pad = (value: number, width = 2) => String(value).padStart(width, "0");
    const date = fc
      .record({
        instant: fc.integer({ min: Date.UTC(1969, 11, 30), max: Date.UTC(2100, 0, 2) }),
        offsetMinutes: fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }),
      })
      .map(({ instant, offsetMinutes }) => {
        const local = new Date(instant + offsetMinutes * 60_000).toISOString().slice(0, 19);
        const sign = offsetMinutes < 0 ? "-" : "+";
        const offset = `${sign}${pad(Math.floor(Math.abs(offsetMinutes) / 60))}:${pad(Math.abs(offsetMinutes) % 60)}`;
        return { text: `${local}${offset}`, instant: Math.floor(instant / 1000) * 1000 };
      });
    fc.assert(
      fc.property(date, ({ text, instant }) => {
        expect(accepts(text)).toBe(CONTRACT_DATE_PATTERN.test(text));
        if (accepts(text)) expect(instant >= CONTRACT_DATES.from && instant < CONTRACT_DATES.until).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });
});

describe("usage dates", () => {
  /** The few JSON Schema keywords UsageDate's calendar rule (a `not`) uses, evaluated as a validator would. */
  const holds = (schema: any, value: any): boolean =>
    (schema.properties === undefined ||
      Object.entries<any>(schema.properties).every(([key, sub]) => holds(sub, value[key]))) &&
    (schema.minimum === undefined || value >= schema.minimum) &&
    (schema.maximum === undefined || value <= schema.maximum) &&
    (schema.const === undefined || value === schema.const) &&
    (schema.enum === undefined || schema.enum.includes(value)) &&
    (schema.multipleOf === undefined || value % schema.multipleOf === 0) &&
    (schema.not === undefined || !holds(schema.not, value)) &&
    (schema.anyOf === undefined || schema.anyOf.some((branch: any) => holds(branch, value)));

  it("states in the document exactly the calendar days the server accepts", () => {
    const usageDate = document.components.schemas.UsageDate;
    for (const year of [2000, 2023, 2024, 2100, 2400, 2999]) {
      for (let month = 1; month <= 12; month += 1) {
        for (let day = 1; day <= 31; day += 1) {
          const accepted = measurementCreate.safeParse({
            customerId: "c",
            meterId: "m",
            usageDate: { year, month, day },
            value: 1,
          }).success;
          expect(holds(usageDate, { year, month, day }), `${year}-${month}-${day}`).toBe(accepted);
        }
      }
    }
  });
});

describe("cursors", () => {
  it("of contracts, customers and invoices: a string of the documented pattern is a position, else 400", async () => {
    const cursorParameter = document.paths["/customers"].get.parameters.find(
      (parameter: any) => parameter.name === "cursor",
    );
    expect(cursorParameter.schema.pattern).toBe(CURSOR_PATTERN.source);
    for (const path of ["/customers", "/contracts", "/invoices"]) {
      for (const cursor of ["djI6AAAAAAAAAAAAAAAA", "djI6____________----"]) {
        expect(
          (await server.rest("GET", `${path}?cursor=${cursor}`, { token: account.token })).status,
          `${path} ${cursor}`,
        ).toBe(200);
      }
      expectError(await server.rest("GET", `${path}?cursor=0`, { token: account.token }), 400, "BAD_REQUEST");
    }
  });

  it("nextCursor matches the pattern and leads to the next page", async () => {
    const { token: own } = await server.newAccount();
    for (const name of ["a", "b", "c"]) await server.rest("POST", "/customers", { token: own, body: { name } });
    const first = (await server.rest("GET", "/customers?limit=2", { token: own })).body;
    expect(first.nextCursor).toMatch(CURSOR_PATTERN);
    const second = (await server.rest("GET", `/customers?limit=2&cursor=${first.nextCursor}`, { token: own })).body;
    expect(second.customers.map((customer: { name: string }) => customer.name)).toEqual(["c"]);
  });

  it("of credits and events: a 24-hex id in the document; an id naming no item of the list is 404", async () => {
    const eventCursor = document.paths["/events"].get.parameters.find((parameter: any) => parameter.name === "cursor");
    expect(eventCursor.schema.pattern).toBe("^[0-9a-f]{24}$");
    const window = "startTime=2024-01-01T00:00:00Z&endTime=2024-01-02T00:00:00Z";
    expectError(
      await server.rest("GET", `/events?${window}&cursor=0123456789abcdef01234567`, { token: account.token }),
      404,
      "NOT_FOUND",
    );
    expectError(await server.rest("GET", `/events?${window}&cursor=0`, { token: account.token }), 400, "BAD_REQUEST");
  });
});
