import { beforeAll, describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { type BillingAccount, billingAccount } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

const server = useTestServer();

const event = (ref: string, name: string, timestamp: string, customerAlias: string, data?: Record<string, string>) => ({
  ref,
  name,
  timestamp,
  customerAlias,
  ...(data && { data }),
});

/** An account whose customer Acme has aliases acme-prod and acme-dev and externalId ext-acme. */
async function acmeAccount() {
  const account = await billingAccount(server, {
    name: "Acme",
    aliases: ["acme-prod", "acme-dev"],
    externalId: "ext-acme",
  });
  const usage = async (meterKey: string, startDate: string, endDate: string, customerId = account.customerId) => {
    const response = await server.rest(
      "GET",
      `/usage?customerId=${customerId}&meterKey=${meterKey}&startDate=${startDate}&endDate=${endDate}`,
      { token: account.token },
    );
    if (response.status !== 200) throw new Error(`${response.status} ${JSON.stringify(response.body)}`);
    return response.body.usage;
  };
  const meter = (body: Record<string, unknown>) => account.post("/meters", body, 201);
  const ingest = (events: unknown[]) => account.post("/events", { events });
  return { ...account, usage, meter, ingest };
}

describe("GET /usage: aggregations over events", () => {
  let account: BillingAccount & Awaited<ReturnType<typeof acmeAccount>>;
  beforeAll(async () => {
    account = await acmeAccount();
    // Beta's externalId is one of Acme's aliases: an alias wins over an externalId.
    await account.newCustomer({ name: "Beta", externalId: "acme-dev" });
    await account.meter({
      key: "api-calls",
      eventName: "api_call",
      aggregation: "COUNT",
      filters: [{ property: "region", in: ["eu", "us"] }],
    });
    await account.ingest([
      event("c1", "api_call", "2024-03-01T10:00:00Z", "acme-prod", { region: "eu" }), // counted, 03-01
      event("c2", "api_call", "2024-03-01T23:59:59Z", "acme-dev", { region: "us" }), // counted, 03-01 (alias, not Beta)
      event("c3", "api_call", "2024-03-02T00:00:00Z", "acme-prod", { region: "apac" }), // filtered out
      // counted, 03-02 03:00Z (externalId)
      event("c4", "api_call", "2024-03-02T05:00:00+02:00", "ext-acme", { region: "eu" }),
      event("c5", "api_call", "2024-03-02T06:00:00Z", "other-co", { region: "eu" }), // no customer
      event("c6", "api_call", "2024-03-03T00:00:00Z", "acme-prod"), // no region: filtered out
      event("c7", "api_call", "2024-02-29T23:59:59Z", "acme-prod", { region: "eu" }), // before the period
      event("c8", "api_call", "2024-03-04T00:00:00Z", "acme-prod", { region: "eu" }), // end day is exclusive
    ]);
    for (const [key, aggregation] of [
      ["gb-sum", "SUM"],
      ["gb-max", "MAX"],
      ["gb-latest", "LATEST"],
    ] as const) {
      await account.meter({ key, eventName: "storage", aggregation, valueProperty: "gb" });
    }
    await account.ingest([
      event("s1", "storage", "2024-03-01T01:00:00Z", "acme-prod", { gb: "1.5" }),
      event("s2", "storage", "2024-03-01T02:00:00Z", "acme-prod", { gb: "2.25" }),
      event("s3", "storage", "2024-03-02T01:00:00Z", "acme-prod", { gb: "abc" }), // not a number: not counted
      event("s4", "storage", "2024-03-02T02:00:00Z", "acme-prod", { gb: "0.000001" }),
      event("s5", "storage", "2024-03-03T08:00:00Z", "acme-prod", { gb: "10" }),
      event("s6", "storage", "2024-03-03T09:00:00Z", "acme-prod", { size: "99" }), // no gb: not counted
      event("s7", "storage", "2024-03-03T07:00:00Z", "acme-dev", { gb: "7" }), // earlier than s5: not the latest
    ]);
  });

  it("COUNT counts matching events of the customer's aliases and externalId per UTC day, end exclusive", async () => {
    expect(await account.usage("api-calls", "2024-03-01", "2024-03-04")).toEqual({
      customerId: account.customerId,
      meterKey: "api-calls",
      aggregation: "COUNT",
      value: 3, // c1, c2, c4
      days: [
        { date: "2024-03-01", value: 2, source: "EVENTS" },
        { date: "2024-03-02", value: 1, source: "EVENTS" },
      ],
    });
    expect((await account.usage("api-calls", "2024-02-29", "2024-03-05")).value).toBe(5); // + c7 and c8
  });

  it("SUM adds decimal values exactly, skipping missing and non-numeric ones", async () => {
    const usage = await account.usage("gb-sum", "2024-03-01", "2024-03-04");
    // 1.5 + 2.25 = 3.75; 0.000001 ("abc" skipped); 10 + 7 = 17 (s6 has no gb): 3.75 + 0.000001 + 17 = 20.750001
    expect(usage.value).toBe(20.750001);
    expect(usage.days.map((day: { value: number }) => day.value)).toEqual([3.75, 0.000001, 17]);
  });

  it("MAX takes the largest value, LATEST the last one in time", async () => {
    expect((await account.usage("gb-max", "2024-03-01", "2024-03-04")).value).toBe(10);
    // s5 at 08:00 after s7 at 07:00
    expect((await account.usage("gb-latest", "2024-03-01", "2024-03-04")).value).toBe(10);
    expect((await account.usage("gb-latest", "2024-03-01", "2024-03-03")).value).toBe(0.000001); // s4
  });

  it("a measurement replaces that day's events, for that meter only", async () => {
    await account.measure("gb-sum", "2024-03-03", 4);
    const usage = await account.usage("gb-sum", "2024-03-01", "2024-03-04");
    expect(usage.value).toBe(7.750001); // 3.75 + 0.000001 + 4 (the 17 of 03-03's events is replaced)
    expect(usage.days.at(-1)).toEqual({ date: "2024-03-03", value: 4, source: "MEASUREMENT" });
    expect((await account.usage("gb-max", "2024-03-01", "2024-03-04")).value).toBe(10);
    // A measurement of 0 replaces too: a day of events corrected to nothing.
    await account.measure("gb-max", "2024-03-03", 0);
    expect((await account.usage("gb-max", "2024-03-01", "2024-03-04")).value).toBe(2.25);
  });

  it("another customer's externalId that is Acme's alias sees nothing of Acme's events", async () => {
    const betaId = (await server.rest("GET", "/customers/acme-dev", { token: account.token })).body.customer.id;
    expect((await account.usage("api-calls", "2024-03-01", "2024-03-04", betaId)).value).toBe(0);
  });
});

describe("GET /usage: UNIQUE_COUNT, fallback and bad input", () => {
  it("UNIQUE_COUNT counts distinct values per day and over the whole period, and refuses measurements", async () => {
    const account = await acmeAccount();
    await account.meter({ key: "users", eventName: "login", aggregation: "UNIQUE_COUNT", valueProperty: "user" });
    await account.ingest(
      [
        ["u1", "01"],
        ["u2", "01"],
        ["u1", "01"],
        ["u2", "02"],
        ["u3", "02"],
      ].map(([user, date], index) =>
        event(`l${index}`, "login", `2024-03-${date}T12:00:0${index}Z`, "acme-prod", { user: user! }),
      ),
    );
    const usage = await account.usage("users", "2024-03-01", "2024-04-01");
    expect(usage).toMatchObject({ aggregation: "UNIQUE_COUNT", value: 3 }); // u1, u2, u3 (not 2 + 2)
    expect(usage.days.map((day: { value: number }) => day.value)).toEqual([2, 2]);
    const refused = await server.rest("POST", "/measurements", {
      token: account.token,
      body: { customerId: account.customerId, meterId: "users", usageDate: { year: 2024, month: 3, day: 1 }, value: 1 },
    });
    expectError(refused, 400, "BAD_REQUEST");
    expect(refused.body.issues).toEqual([{ path: "meterId", message: "names a UNIQUE_COUNT meter" }]);
  });

  it("a key that names no meter sums its measurements, as before meters", async () => {
    const account = await acmeAccount();
    await account.measure("seats", "2024-03-01", 2.5);
    await account.measure("seats", "2024-03-31", 1);
    await account.measure("seats", "2024-04-01", 100);
    expect(await account.usage("seats", "2024-03-01", "2024-04-01")).toMatchObject({
      aggregation: "SUM",
      value: 3.5,
      days: [
        { date: "2024-03-01", value: 2.5, source: "MEASUREMENT" },
        { date: "2024-03-31", value: 1, source: "MEASUREMENT" },
      ],
    });
  });

  it("400 naming the field for bad days and periods; 404 for an unknown customer", async () => {
    const account = await acmeAccount();
    const get = (query: string) => server.rest("GET", `/usage?${query}`, { token: account.token });
    const base = `customerId=${account.customerId}&meterKey=m`;
    for (const [query, path] of [
      [`${base}&startDate=2024-02-30&endDate=2024-03-01`, "startDate"],
      [`${base}&startDate=2024-3-1&endDate=2024-03-02`, "startDate"],
      [`${base}&startDate=2024-03-01&endDate=2024-03-01`, "endDate"],
      [`${base}&startDate=2000-01-01&endDate=2020-01-01`, "endDate"],
      [`customerId=${account.customerId}&startDate=2024-03-01&endDate=2024-03-02`, "meterKey"],
    ] as const) {
      const response = await get(query);
      expectError(response, 400, "BAD_REQUEST");
      expect(response.body.issues.map((issue: { path: string }) => issue.path)).toEqual([path]);
    }
    expectError(
      await get(`customerId=0123456789abcdef01234567&meterKey=m&startDate=2024-03-01&endDate=2024-03-02`),
      404,
      "NOT_FOUND",
    );
  });
});
