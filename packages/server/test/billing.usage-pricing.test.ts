import { describe, expect, it } from "vitest";
import { customerGroups } from "../src/services/billing/batch-usage.js";
import { expectError } from "./support/assertions.js";
import { between, billingAccount, monthly, usageProduct } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

const server = useTestServer();

const tiers = [
  { upTo: 10, unitPrice: 1, flatPrice: 5 },
  { upTo: 100, unitPrice: 0.5, flatPrice: 2 },
  { upTo: null, unitPrice: 0.1 },
];
const TWO_MONTHS = between("2024-01-01", "2024-03-01");
const event = (ref: string, name: string, timestamp: string, data: Record<string, string> = {}) => ({
  ref,
  name,
  timestamp,
  customerAlias: "acme",
  data,
});
const linesByName = (invoice: { lineItems: any[] }) =>
  Object.fromEntries(invoice.lineItems.map((line) => [line.name, line]));

describe("usage pricing on invoices (amounts worked out by hand)", () => {
  it(
    "prices PER_UNIT, GRADUATED, VOLUME, PACKAGE and FLAT lines from events and measurements, tier boundaries " +
      "included",
    async () => {
      const account = await billingAccount(server, { name: "Acme", aliases: ["acme"] });
      await account.post("/meters", { key: "calls", eventName: "api", aggregation: "SUM", valueProperty: "n" }, 201);
      await account.post("/meters", { key: "gb", eventName: "storage", aggregation: "MAX", valueProperty: "gb" }, 201);
      await account.post("/meters", { key: "msgs", eventName: "message", aggregation: "COUNT" }, 201);
      await account.post("/events", {
        events: [
          event("a1", "api", "2024-01-05T10:00:00Z", { n: "1000.5" }),
          event("a2", "api", "2024-01-31T23:59:59Z", { n: "234" }),
          event("a3", "api", "2024-02-01T00:00:00Z", { n: "100" }),
          event("g1", "storage", "2024-01-10T00:00:00Z", { gb: "4" }),
          event("g2", "storage", "2024-01-20T00:00:00Z", { gb: "10" }),
          event("g3", "storage", "2024-02-20T00:00:00Z", { gb: "10.5" }),
          ...["m1", "m2", "m3"].map((ref) => event(ref, "message", "2024-01-15T12:00:00Z")),
        ],
      });
      // "seats" names no meter: its measurements are summed, as before meters.
      await account.measure("seats", "2024-01-03", 60);
      await account.measure("seats", "2024-01-04", 40.000001);
      await account.measure("seats", "2024-02-10", 100);
      const contract = await account.contract({
        ...TWO_MONTHS,
        products: [
          usageProduct("API", "calls", { type: "PER_UNIT", price: 0.015 }),
          usageProduct("Storage", "gb", { type: "GRADUATED", tiers }),
          usageProduct("Seats", " seats ", { type: "VOLUME", tiers }),
          usageProduct("Bundles", "msgs", { type: "PACKAGE", price: 5, packageSize: 2 }),
          { displayName: "Platform", scheduling: monthly(1), pricing: { type: "FLAT", price: 49.99 } },
        ],
      });
      const [january, february] = await account.invoicesAsOf(contract.id, "2024-03-01T00:00:00Z");

      const jan = linesByName(january);
      expect(jan.API).toMatchObject({ kind: "USAGE", catalogProductId: "calls", quantity: 1234.5, unitPrice: 0.015 });
      expect(jan.API.revenueBreakdown.subtotal).toBe(18.52); // 1234.5 × 0.015 = 18.5175
      // MAX usage 10, exactly the first tier's upTo: 10 × 1 + 5, the next tier is not reached.
      expect(jan.Storage.tiers).toEqual([{ upTo: 10, quantity: 10, unitPrice: 1, flatPrice: 5, amount: 15 }]);
      expect(jan.Storage.revenueBreakdown.subtotal).toBe(15);
      // 60 + 40.000001 = 100.000001, just past 100: every unit at the third tier, 10.0000001 → 10.00.
      expect(jan.Seats).toMatchObject({ catalogProductId: "seats", quantity: 100.000001, unitPrice: 0.1 });
      expect(jan.Seats.revenueBreakdown.subtotal).toBe(10);
      // 3 messages in packages of 2: ⌈1.5⌉ = 2 packages × 5.
      expect(jan.Bundles).toMatchObject({ quantity: 3, packages: { count: 2, size: 2, price: 5 } });
      expect(jan.Bundles.revenueBreakdown.subtotal).toBe(10);
      expect(jan.Platform).toMatchObject({ kind: "FLAT", quantity: 1, unitPrice: 49.99 });
      // 18.52 + 15 + 10 + 10 + 49.99
      expect(january.revenueBreakdown).toMatchObject({ subtotal: 103.51, overage: 0, total: 103.51 });

      const feb = linesByName(february);
      expect(feb.API.revenueBreakdown.subtotal).toBe(1.5); // 100 × 0.015
      // 10.5: tier one in full (10 × 1 + 5 = 15) and 0.5 of tier two (0.5 × 0.5 + 2 = 2.25).
      expect(feb.Storage.tiers).toEqual([
        { upTo: 10, quantity: 10, unitPrice: 1, flatPrice: 5, amount: 15 },
        { upTo: 100, quantity: 0.5, unitPrice: 0.5, flatPrice: 2, amount: 2.25 },
      ]);
      expect(feb.Storage.revenueBreakdown.subtotal).toBe(17.25);
      expect(feb.Seats.revenueBreakdown.subtotal).toBe(52); // exactly 100, upTo inclusive: tier two, 100 × 0.5 + 2
      expect(feb.Bundles).toMatchObject({ quantity: 0, packages: { count: 0 } });
      expect(february.revenueBreakdown.total).toBe(120.74); // 1.5 + 17.25 + 52 + 0 + 49.99
    },
  );

  it("a month-end's usage read together: each customer's invoice prices its own aliases and measurements", async () => {
    // One run bills the three contracts as one batch, whose usage is read for all of them at once (docs/decisions.md,
    // "A batch's usage, pending payments and finalizations"): each invoice must still see only its customer's usage.
    const account = await billingAccount(server, { name: "Acme", aliases: ["acme", "acme-eu"] });
    await account.post("/meters", { key: "calls", eventName: "api", aggregation: "SUM", valueProperty: "n" }, 201);
    const beta = await account.newCustomer({ name: "Beta", aliases: ["beta"] });
    const gamma = await account.newCustomer({ name: "Gamma", aliases: ["gamma"] });
    const call = (ref: string, customerAlias: string, timestamp: string, n: string) => ({
      ref,
      name: "api",
      customerAlias,
      timestamp,
      data: { n },
    });
    await account.post("/events", {
      events: [
        call("a1", "acme", "2024-01-05T00:00:00Z", "100"),
        call("a2", "acme-eu", "2024-01-06T00:00:00Z", "50"),
        call("b1", "beta", "2024-01-05T00:00:00Z", "7"),
        call("b2", "beta", "2024-01-20T00:00:00Z", "30"),
        call("g1", "gamma", "2024-02-01T00:00:00Z", "999"),
      ],
    });
    // Beta's Jan 20 is measured: 12 replaces its events' 30 that day.
    await account.measure("calls", "2024-01-20", 12, beta);
    const products = [usageProduct("API", "calls", { type: "PER_UNIT", price: 0.1 })];
    const contracts = [];
    for (const customerId of [account.customerId, beta, gamma]) {
      contracts.push(await account.contract({ customerId, ...between("2024-01-01", "2024-02-01"), products }));
    }
    const run = await account.run("2024-02-01T00:00:00Z");
    expect(run.invoicesCreated).toBe(3);
    const totals = [];
    for (const contract of contracts) totals.push((await account.invoices(contract.id))[0].revenueBreakdown.total);
    // Acme: (100 + 50) × 0.10 = 15.00 (both aliases); Beta: (7 + 12) × 0.10 = 1.90; Gamma: February's 999 is not
    // January's: 0.00.
    expect(totals).toEqual([15, 1.9, 0]);
  });

  it("CHARGE overage: units beyond the commitment at overagePrice, in revenueBreakdown.overage", async () => {
    const account = await billingAccount(server, { name: "Acme", aliases: ["acme"] });
    await account.post("/meters", { key: "calls", eventName: "api", aggregation: "SUM", valueProperty: "n" }, 201);
    await account.post("/events", {
      events: [
        event("j", "api", "2024-01-10T00:00:00Z", { n: "1502.5" }),
        event("f", "api", "2024-02-10T00:00:00Z", { n: "900" }),
      ],
    });
    const commitment = { units: 1000, price: 0.01, overageStrategy: "CHARGE", overagePrice: 0.002 };
    const contract = await account.contract({
      ...TWO_MONTHS,
      products: [{ displayName: "Calls", catalogProductId: "calls", scheduling: monthly(1), commitment }],
    });
    const [january, february] = await account.invoicesAsOf(contract.id, "2024-03-01T00:00:00Z");
    // 1000 × 0.01 = 10 committed; 502.5 over × 0.002 = 1.005 → 1.01 (half up).
    expect(january.revenueBreakdown).toMatchObject({ subtotal: 10, overage: 1.01, total: 11.01 });
    expect(linesByName(january)["Calls overage"]).toMatchObject({
      kind: "USAGE",
      quantity: 502.5,
      unitPrice: 0.002,
      revenueBreakdown: { subtotal: 0, overage: 1.01, total: 1.01 },
    });
    expect(february.revenueBreakdown).toMatchObject({ subtotal: 10, overage: 0, total: 10 }); // 900 < 1000
    expect(february.lineItems.map((line: { name: string }) => line.name)).toEqual(["Calls commitment", "Calls usage"]);
  });

  it("preview shows the usage so far of the running cycle", async () => {
    const account = await billingAccount(server, { name: "Acme", aliases: ["acme"] });
    await account.post("/meters", { key: "calls", eventName: "api", aggregation: "COUNT" }, 201);
    await account.post("/events", {
      events: ["2024-01-02", "2024-01-09", "2024-01-20"].map((day, index) =>
        event(`p${index}`, "api", `${day}T08:00:00Z`),
      ),
    });
    const contract = await account.contract({
      ...TWO_MONTHS,
      products: [usageProduct("API", "calls", { type: "PER_UNIT", price: 0.5 })],
    });
    const preview = await account.preview({ contractId: contract.id, at: "2024-01-09T12:00:00Z" });
    expect(preview.status).toBe(200);
    // 2 events so far × 0.5
    expect(preview.body.invoice.lineItems[0]).toMatchObject({ quantity: 2, revenueBreakdown: { total: 1 } });
  });
});

describe("pricing input: 400 naming the field, 409 for usage priced twice", () => {
  it("refuses bad prices and tiers, and stores nothing", async () => {
    const account = await billingAccount(server);
    const product = (fields: Record<string, unknown>) => ({ displayName: "P", catalogProductId: "m", ...fields });
    const cases: [Record<string, unknown>, string][] = [
      [{ products: [{ displayName: "P", pricing: { type: "PER_UNIT", price: 1 } }] }, "products.0.catalogProductId"],
      [
        { products: [product({ pricing: { type: "GRADUATED", tiers: [{ upTo: 10, unitPrice: 1 }] } })] },
        "products.0.pricing.tiers.0.upTo",
      ],
      [
        {
          products: [
            product({
              pricing: {
                type: "VOLUME",
                tiers: [
                  { upTo: 10, unitPrice: 1 },
                  { upTo: 10, unitPrice: 1 },
                  { upTo: null, unitPrice: 1 },
                ],
              },
            }),
          ],
        },
        "products.0.pricing.tiers.1.upTo",
      ],
      [
        {
          products: [
            product({
              pricing: {
                type: "VOLUME",
                tiers: [
                  { upTo: null, unitPrice: 1 },
                  { upTo: null, unitPrice: 1 },
                ],
              },
            }),
          ],
        },
        "products.0.pricing.tiers.0.upTo",
      ],
      [{ products: [product({ pricing: { type: "GRADUATED", tiers: [] } })] }, "products.0.pricing.tiers"],
      [
        { products: [product({ pricing: { type: "PACKAGE", price: 1, packageSize: 0 } })] },
        "products.0.pricing.packageSize",
      ],
      [{ products: [product({ pricing: { type: "PER_UNIT", price: 1.0000001 } })] }, "products.0.pricing.price"],
      [
        { products: [product({ pricing: { type: "PER_UNIT", price: 1 }, commitment: { units: 1, price: 1 } })] },
        "products.0.pricing",
      ],
      [
        { products: [product({ commitment: { units: 1, price: 1, overageStrategy: "CHARGE" } })] },
        "products.0.commitment.overagePrice",
      ],
      [
        { products: [product({ commitment: { units: 1, price: 1, overagePrice: 1 } })] },
        "products.0.commitment.overagePrice",
      ],
      // CHARGE bills usage beyond the committed units: without a meter there is no usage to charge.
      [
        {
          products: [
            { displayName: "P", commitment: { units: 1, price: 1, overageStrategy: "CHARGE", overagePrice: 1 } },
          ],
        },
        "products.0.catalogProductId",
      ],
      [
        {
          productGroups: [
            {
              displayName: "G",
              commitment: { units: 1, price: 1, overageStrategy: "CHARGE", overagePrice: 1 },
              products: [{ displayName: "P", pricing: { type: "FLAT", price: 1 } }],
            },
          ],
        },
        "productGroups.0.products",
      ],
      [
        {
          productGroups: [
            {
              displayName: "G",
              commitment: { units: 1, price: 1 },
              products: [product({ pricing: { type: "PER_UNIT", price: 1 } })],
            },
          ],
        },
        "productGroups.0.products.0.pricing",
      ],
      [
        {
          products: [
            product({ pricing: { type: "PER_UNIT", price: 1 } }),
            product({
              displayName: "Q",
              catalogProductId: " m",
              pricing: { type: "FLAT", price: 1 },
              commitment: { units: 1, price: 1, overageStrategy: "CHARGE", overagePrice: 1 },
            }),
          ],
        },
        "products.1.catalogProductId",
      ],
      // Usage billed in advance would be none of it on time: Prepayment is refused on what charges usage.
      ...[
        { type: "PER_UNIT", price: 1 },
        { type: "PACKAGE", price: 1, packageSize: 10 },
        { type: "GRADUATED", tiers: [{ upTo: null, unitPrice: 1 }] },
        { type: "VOLUME", tiers: [{ upTo: null, unitPrice: 1 }] },
      ].map((pricing): [Record<string, unknown>, string] => [
        { products: [product({ pricing, paymentTerm: "Prepayment" })] },
        "products.0.paymentTerm",
      ]),
      [
        {
          products: [
            product({
              commitment: { units: 1, price: 1, overageStrategy: "CHARGE", overagePrice: 1 },
              paymentTerm: "Prepayment",
            }),
          ],
        },
        "products.0.paymentTerm",
      ],
      // A group is prepaid as a whole when one of its products is: its usage prices would be billed in advance.
      [
        {
          productGroups: [
            {
              displayName: "G",
              products: [
                product({ pricing: { type: "PER_UNIT", price: 1 } }),
                { displayName: "Setup", pricing: { type: "FLAT", price: 1 }, paymentTerm: "Prepayment" },
              ],
            },
          ],
        },
        "productGroups.0.products.1.paymentTerm",
      ],
    ];
    for (const [fields, path] of cases) {
      const response = await server.rest("POST", "/contracts", {
        token: account.token,
        body: { customerId: account.customerId, name: "Bad", startDate: "2024-01-01T00:00:00Z", ...fields },
      });
      expectError(response, 400, "BAD_REQUEST");
      expect(
        response.body.issues.map((issue: { path: string }) => issue.path),
        JSON.stringify(fields),
      ).toEqual([path]);
    }
    expect((await server.rest("GET", "/contracts", { token: account.token })).body.total).toBe(0);
  });

  it("a prepaid fee beside a usage price: the fee at each cycle's start, the usage after its end", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      ...between("2024-01-01", "2024-02-01"),
      products: [
        { displayName: "Fee", scheduling: monthly(1), pricing: { type: "FLAT", price: 10 }, paymentTerm: "Prepayment" },
        usageProduct("Calls", "calls", { type: "PER_UNIT", price: 0.5 }),
      ],
    });
    await account.measure("calls", "2024-01-20", 4);
    await account.run("2024-02-01T00:00:00Z");
    // Issued Jan 1: Fee 10.00; issued Feb 1: 4 calls × 0.50 = 2.00.
    expect((await account.invoices(contract.id)).map((invoice) => [invoice.lineItems[0].name, invoice.amount])).toEqual(
      [
        ["Fee", 10],
        ["Calls", 2],
      ],
    );
  });

  it("409 naming the product when another live contract prices the same meter over overlapping days", async () => {
    const account = await billingAccount(server);
    const priced = (name: string) => ({
      displayName: name,
      catalogProductId: "calls",
      pricing: { type: "PER_UNIT", price: 1 },
    });
    const first = await account.contract({ ...TWO_MONTHS, products: [priced("API")] });
    const overlapping = await server.rest("POST", "/contracts", {
      token: account.token,
      body: {
        customerId: account.customerId,
        name: "Second",
        startDate: "2024-02-29T23:00:00Z",
        products: [priced("API again")],
      },
    });
    expectError(overlapping, 409, "CONFLICT");
    expect(overlapping.body.message).toContain('"API again"');
    expect(overlapping.body.issues).toEqual([
      { path: "products.0.catalogProductId", message: expect.stringContaining(first.id) },
    ]);
    // From the first contract's end day on, the days are free; so is the meter for an InReview contract.
    await account.contract({ startDate: "2024-03-01T00:00:00Z", products: [priced("API later")] });
    await account.contract({ ...TWO_MONTHS, status: "InReview", products: [priced("API draft")] });
    // A deleted contract prices nothing any more.
    expect((await account.deleteContract(first.id)).status).toBe(200);
    await account.contract({ ...TWO_MONTHS, products: [priced("API instead")] });
  });
});

describe("a batch's usage read in groups of customers (customerGroups)", () => {
  const customers = (count: number, aliasesEach: number) =>
    new Map(
      Array.from({ length: count }, (_, c) => [`c${c}`, Array.from({ length: aliasesEach }, (_, a) => `c${c}-${a}`)]),
    );
  const sizes = (groups: { customerIds: string[]; aliases: string[] }[]) =>
    groups.map(({ customerIds, aliases }) => [customerIds.length, aliases.length]);

  it("keeps each group within 200 aliases", () => {
    // One event name over 31 days: 31 usage days an alias, 20,000 / 31 = 645 aliases by days, 200 by the $in bound.
    expect(sizes(customerGroups(customers(150, 2), 31))).toEqual([
      [100, 200],
      [50, 100],
    ]);
    expect(sizes(customerGroups(customers(100, 1), 31))).toEqual([[100, 100]]);
  });

  it("keeps each group within 20,000 usage days, and leaves out a customer no group can hold", () => {
    // 5 event names over 62 days: 310 usage days an alias, 20,000 / 310 = 64 aliases a group: 32 customers of 2.
    expect(sizes(customerGroups(customers(70, 2), 310))).toEqual([
      [32, 64],
      [32, 64],
      [6, 12],
    ]);
    const crowded = new Map([...customers(2, 1), ["many", Array.from({ length: 201 }, (_, a) => `m${a}`)]]);
    expect(customerGroups(crowded, 31).map(({ customerIds }) => customerIds)).toEqual([["c0", "c1"]]);
  });
});
