import { describe, expect, it } from "vitest";
import { billingAccount, committed, cyclesOf, day, everyMonths, monthly } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/**
 * What each cycle charges (docs/decisions.md, "Billing engine" → Charges, Overage, Proration, Rounding, Due date,
 * When).
 */
const server = useTestServer();

const amounts = (invoices: { amount: number }[]) => invoices.map((invoice) => invoice.amount);
const breakdown = (subtotal: number, total = subtotal) => ({
  subtotal,
  overage: 0,
  discount: 0,
  creditsUsed: 0,
  tax: 0,
  taxInclusive: 0,
  total,
});

describe("proration (shouldProRateInvoices)", () => {
  it("charges the first and last cycles by covered days; without the flag, in full", async () => {
    const account = await billingAccount(server);
    const fields = {
      startDate: "2024-01-15T00:00:00Z",
      endDate: "2024-03-10T00:00:00Z",
      products: [committed(10, 100)],
    };
    const prorated = await account.contract({ ...fields, shouldProRateInvoices: true });
    const full = await account.contract(fields);
    await account.run("2024-04-01T00:00:00Z");

    const invoices = await account.invoices(prorated.id);
    expect(cyclesOf(invoices)).toEqual([
      [day("2024-01-01"), day("2024-02-01")],
      [day("2024-02-01"), day("2024-03-01")],
      [day("2024-03-01"), day("2024-03-10")],
    ]);
    // 10 × 100 = 1000 per cycle.
    // Jan: Jan 15..31 = 17 of 31 days → 1000 × 17 / 31 = 548.387… → 548.39
    // Feb: whole cycle → 1000.00
    // Mar: Mar 1..9 = 9 of 31 days (ends Mar 10 at 00:00) → 1000 × 9 / 31 = 290.322… → 290.32
    expect(amounts(invoices)).toEqual([548.39, 1000, 290.32]);
    expect(invoices[0].revenueBreakdown).toEqual(breakdown(548.39));
    expect(invoices[0].lineItems).toEqual([
      expect.objectContaining({ kind: "COMMITMENT", quantity: 10, unitPrice: 100 }),
    ]);

    // Without the flag: 1000.00 for each of the same three cycles.
    const unprorated = await account.invoices(full.id);
    expect(cyclesOf(unprorated)).toEqual(cyclesOf(invoices));
    expect(amounts(unprorated)).toEqual([1000, 1000, 1000]);
  });

  it("counts whole UTC days: a start late in a day covers that day, the end's day is not covered", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2024-01-15T18:00:00Z",
      endDate: "2024-03-10T12:00:00Z",
      shouldProRateInvoices: true,
      products: [committed(10, 100)],
    });
    await account.run("2024-04-01T00:00:00Z");
    const invoices = await account.invoices(contract.id);
    expect(cyclesOf(invoices).at(-1)).toEqual([day("2024-03-01"), day("2024-03-10")]);
    // Jan 15..31 = 17 of 31 → 548.39 (as above); Mar 1..9 = 9 of 31 → 1000 × 9 / 31 = 290.322… → 290.32
    expect(amounts(invoices)).toEqual([548.39, 1000, 290.32]);
  });

  it("prorates February by its own length: 29 days in 2024, 28 in 2023", async () => {
    const account = await billingAccount(server);
    const leap = await account.contract({
      startDate: "2024-02-10T00:00:00Z",
      shouldProRateInvoices: true,
      products: [committed(10, 100)],
    });
    const common = await account.contract({
      startDate: "2023-02-10T00:00:00Z",
      shouldProRateInvoices: true,
      products: [committed(10, 100)],
    });
    await account.run("2024-03-01T00:00:00Z");
    // 2024: Feb 10..29 = 20 of 29 days → 1000 × 20 / 29 = 689.655… → 689.66
    expect((await account.invoices(leap.id))[0]).toMatchObject({
      amount: 689.66,
      billingCycle: { startTime: day("2024-02-01"), endTime: day("2024-03-01") },
    });
    // 2023: Feb 10..28 = 19 of 28 days → 1000 × 19 / 28 = 678.571… → 678.57
    expect((await account.invoices(common.id))[0]).toMatchObject({
      amount: 678.57,
      billingCycle: { startTime: day("2023-02-01"), endTime: day("2023-03-01") },
    });
  });
});

describe("rounding", () => {
  it("computes each line exactly and rounds it once to whole cents, half up", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      products: [
        committed(1, 0.125, 1, { displayName: "Half" }), // 0.125 → 0.13 (half up)
        // 3 × 0.335 = 1.005 exactly → 1.01 (Math.round(1.005 × 100) would give 1.00)
        committed(3, 0.335, 1, { displayName: "Float trap" }),
        committed(7, 0.000001, 1, { displayName: "Dust" }), // 0.000007 → 0.00
        committed(3, 33.333333, 1, { displayName: "Thirds" }), // 99.999999 → 100.00
        committed(2.5, 0.1, 1, { displayName: "Fraction" }), // 2.5 × 0.1 = 0.25
      ],
    });
    await account.run("2024-02-01T00:00:00Z");
    const [invoice] = await account.invoices(contract.id);
    expect(invoice.lineItems.map((line: any) => [line.name, line.revenueBreakdown.subtotal])).toEqual([
      ["Half commitment", 0.13],
      ["Float trap commitment", 1.01],
      ["Dust commitment", 0],
      ["Thirds commitment", 100],
      ["Fraction commitment", 0.25],
    ]);
    // 0.13 + 1.01 + 0 + 100 + 0.25 = 101.39
    expect(invoice.revenueBreakdown).toEqual(breakdown(101.39));
  });
});

describe("one-time prices and product groups", () => {
  it("bills a ONE_TIME price once, on the first invoice only, never prorated", async () => {
    const account = await billingAccount(server);
    const product = committed(10, 10, 1, { displayName: "Setup", pricing: { type: "ONE_TIME", price: 250 } });
    const whole = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [product] });
    const prorated = await account.contract({
      startDate: "2024-01-15T00:00:00Z",
      shouldProRateInvoices: true,
      products: [product],
    });
    await account.run("2024-04-01T00:00:00Z");

    const invoices = await account.invoices(whole.id);
    // Jan: 250 (one-time) + 10 × 10 = 350.00; Feb, Mar: 100.00
    expect(amounts(invoices)).toEqual([350, 100, 100]);
    expect(
      invoices[0].lineItems.map((line: any) => [
        line.kind,
        line.name,
        line.quantity,
        line.unitPrice,
        line.revenueBreakdown.subtotal,
      ]),
    ).toEqual([
      ["ONE_TIME", "Setup", 1, 250, 250],
      ["COMMITMENT", "Setup commitment", 10, 10, 100],
    ]);
    for (const later of invoices.slice(1))
      expect(later.lineItems.map((line: any) => line.kind)).toEqual(["COMMITMENT"]);

    // Prorated: 250 in full + 100 × 17 / 31 = 54.838… → 54.84; total 304.84. Then 100.00 each.
    expect(amounts(await account.invoices(prorated.id))).toEqual([304.84, 100, 100]);
  });

  it("bills a group as one PRODUCT_GROUP line: base + commitment (+ one-time prices at first)", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      productGroups: [
        {
          displayName: "Bundle",
          baseAmount: 500,
          commitment: { units: 1000, price: 0.25, scheduling: monthly(1) },
          products: [
            // Its own commitment is not used: the group's is shared.
            {
              displayName: "API",
              catalogProductId: "api",
              pricing: { type: "ONE_TIME", price: 100 },
              commitment: { units: 5, price: 1000 },
            },
            { displayName: "Storage", catalogProductId: "storage", pricing: { type: "ONE_TIME", price: 20.5 } },
          ],
        },
      ],
    });
    await account.measure("api", "2024-01-10", 300);
    await account.measure("storage", "2024-01-20", 200);
    await account.measure("api", "2024-02-05", 1100);
    await account.measure("storage", "2024-02-06", 100);
    await account.run("2024-03-01T00:00:00Z");

    const [january, february] = await account.invoices(contract.id);
    // Jan: 500 base + 1000 × 0.25 = 250 commitment + 100 + 20.50 one-time = 870.50; usage 300 + 200 = 500 (≤ 1000
    // committed)
    expect(january.lineItems).toEqual([
      {
        invoiceId: january.id,
        version: 1,
        name: "Bundle",
        kind: "PRODUCT_GROUP",
        quantity: 500,
        revenueBreakdown: breakdown(870.5),
        taxes: [],
      },
    ]);
    expect(january.revenueBreakdown).toEqual(breakdown(870.5));
    // Feb: 500 + 250 = 750.00; usage 1100 + 100 = 1200, 200 above the group's 1000 committed units (charged 0).
    expect(february.lineItems).toEqual([
      {
        invoiceId: february.id,
        version: 1,
        name: "Bundle",
        kind: "PRODUCT_GROUP",
        quantity: 1200,
        revenueBreakdown: breakdown(750),
        taxes: [],
      },
      {
        invoiceId: february.id,
        version: 1,
        name: "Bundle overage",
        kind: "USAGE",
        quantity: 200,
        revenueBreakdown: breakdown(0),
        taxes: [],
      },
    ]);
    expect(february.amount).toBe(750);
  });

  it("prorates a group's base amount and commitment, not its one-time prices", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2024-01-15T00:00:00Z",
      shouldProRateInvoices: true,
      productGroups: [
        {
          displayName: "Bundle",
          baseAmount: 310,
          commitment: { units: 10, price: 3.1, scheduling: monthly(1) },
          products: [{ displayName: "Setup", pricing: { type: "ONE_TIME", price: 50 } }],
        },
      ],
    });
    await account.run("2024-03-01T00:00:00Z");
    // Jan 15..31 = 17 of 31 days: base 310 × 17/31 = 170.00, commitment 10 × 3.1 × 17/31 = 17.00, one-time 50 → 237.00
    // Feb: 310 + 31 = 341.00
    expect(amounts(await account.invoices(contract.id))).toEqual([237, 341]);
  });

  it("schedules a group without commitment on its first product's scheduling", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      productGroups: [
        {
          displayName: "Quarterly",
          baseAmount: 90,
          products: [
            { displayName: "A", scheduling: everyMonths(3, 1) },
            { displayName: "B", scheduling: monthly(1) },
          ],
        },
      ],
    });
    await account.run("2024-07-01T00:00:00Z");
    const invoices = await account.invoices(contract.id);
    expect(cyclesOf(invoices)).toEqual([
      [day("2024-01-01"), day("2024-04-01")],
      [day("2024-04-01"), day("2024-07-01")],
    ]);
    expect(amounts(invoices)).toEqual([90, 90]);
  });
});

describe("usage and overage", () => {
  it("counts the cycle's measurements of the product's meter; overage is shown and charged 0", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      products: [committed(100, 2, 1, { displayName: "API calls", catalogProductId: "api-calls" })],
    });
    // In the cycle (Jan 1..31): 50 + 40.5 + 39.5 = 130
    await account.measure("api-calls", "2024-01-01", 50);
    await account.measure("api-calls", "2024-01-15", 40.5);
    await account.measure("api-calls", "2024-01-31", 39.5);
    // Outside it, or on another meter: not counted.
    await account.measure("api-calls", "2023-12-31", 1000);
    await account.measure("api-calls", "2024-02-01", 1000);
    await account.measure("storage", "2024-01-10", 500);
    // Another customer's usage on the same meter: not counted.
    const other = await account.newCustomer({ name: "Other Co" });
    await account.measure("api-calls", "2024-01-10", 777, other);

    await account.run("2024-02-01T00:00:00Z");
    const [invoice] = await account.invoices(contract.id);
    // Every line priced by version 1 of the terms (never amended).
    const identity = { invoiceId: invoice.id, catalogProductId: "api-calls", version: 1 };
    expect(invoice.lineItems).toEqual([
      // 100 × 2 = 200.00
      {
        ...identity,
        name: "API calls commitment",
        kind: "COMMITMENT",
        quantity: 100,
        unitPrice: 2,
        revenueBreakdown: breakdown(200),
        taxes: [],
      },
      { ...identity, name: "API calls usage", kind: "USAGE", quantity: 130, revenueBreakdown: breakdown(0), taxes: [] },
      // 130 − 100 = 30 units over, charged 0 under IGNORE.
      {
        ...identity,
        name: "API calls overage",
        kind: "USAGE",
        quantity: 30,
        revenueBreakdown: breakdown(0),
        taxes: [],
      },
    ]);
    expect(invoice.revenueBreakdown).toEqual(breakdown(200));
  });

  it("counts usage only over the days the contract covers, against unprorated committed units", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2024-01-15T00:00:00Z",
      shouldProRateInvoices: true,
      products: [committed(100, 2, 1, { displayName: "API calls", catalogProductId: "api-calls" })],
    });
    await account.measure("api-calls", "2024-01-10", 1000); // before the contract: not counted
    await account.measure("api-calls", "2024-01-15", 0.1);
    await account.measure("api-calls", "2024-01-20", 0.2);
    await account.measure("api-calls", "2024-01-31", 79.7);
    await account.run("2024-02-01T00:00:00Z");
    const [invoice] = await account.invoices(contract.id);
    // Usage 0.1 + 0.2 + 79.7 = 80 exactly; 80 < 100 committed units (not prorated to 100 × 17/31 = 54.8…): no overage
    // line. Commitment 200 × 17/31 = 109.677… → 109.68
    expect(invoice.lineItems.map((line: any) => [line.kind, line.quantity, line.revenueBreakdown.subtotal])).toEqual([
      ["COMMITMENT", 100, 109.68],
      ["USAGE", 80, 0],
    ]);
  });

  it("shows metered usage of a product without commitment, charged 0, and no overage line", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      products: [{ displayName: "Events", catalogProductId: "events", scheduling: monthly(1) }],
    });
    await account.measure("events", "2024-01-02", 123.456789);
    await account.run("2024-02-01T00:00:00Z");
    const [invoice] = await account.invoices(contract.id);
    expect(invoice.lineItems).toEqual([
      {
        invoiceId: invoice.id,
        version: 1,
        name: "Events usage",
        kind: "USAGE",
        catalogProductId: "events",
        quantity: 123.456789,
        revenueBreakdown: breakdown(0),
        taxes: [],
      },
    ]);
    expect(invoice.amount).toBe(0);
  });
});

describe("prepayment and due dates", () => {
  it("invoices a cycle holding a Prepayment item at its start, with the usage measured by then", async () => {
    const account = await billingAccount(server);
    const prepaid = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      products: [committed(10, 100, 1, { catalogProductId: "seats", paymentTerm: "Prepayment" })],
    });
    const arrears = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(10, 100)] });
    await account.measure("seats", "2024-01-01", 5);

    const run = await account.run("2024-01-01T00:00:01Z");
    expect(run).toMatchObject({ contractsBilled: 2, invoicesCreated: 1 });
    const [january] = await account.invoices(prepaid.id);
    expect(run.invoiceIds).toEqual([january.id]);
    expect(january).toMatchObject({
      billingCycle: { startTime: day("2024-01-01"), endTime: day("2024-02-01") },
      amount: 1000,
    });
    expect(january.lineItems.find((line: any) => line.name === "Seats usage").quantity).toBe(5);
    expect(await account.invoices(arrears.id)).toEqual([]);

    // Later usage of January does not change the invoice made; the next prepaid cycle waits for its own start.
    await account.measure("seats", "2024-01-20", 7);
    expect(await account.run("2024-01-31T23:59:59Z")).toMatchObject({ invoicesCreated: 0 });
    // Just after Feb 1: the prepaid February cycle has started and the arrears January cycle has ended.
    expect(await account.run("2024-02-01T00:00:01Z")).toMatchObject({ invoicesCreated: 2 });
    const invoices = await account.invoices(prepaid.id);
    expect(cyclesOf(invoices)).toEqual([
      [day("2024-01-01"), day("2024-02-01")],
      [day("2024-02-01"), day("2024-03-01")],
    ]);
    expect(invoices[0].lineItems.find((line: any) => line.name === "Seats usage").quantity).toBe(5);
    expect(cyclesOf(await account.invoices(arrears.id))).toEqual([[day("2024-01-01"), day("2024-02-01")]]);
  });

  it("due date: 30 days after issue by default, the end of the issue month for END_OF_MONTH customers", async () => {
    const thirty = await billingAccount(server);
    const endOfMonth = await billingAccount(server, { dueDays: "END_OF_MONTH" });
    const fields = { startDate: "2024-01-01T00:00:00Z", products: [committed(1, 10)] };
    const prepaidFields = {
      startDate: "2024-01-01T00:00:00Z",
      products: [committed(1, 10, 1, { paymentTerm: "Prepayment" })],
    };
    const [a, b, c, d] = [
      await thirty.contract(fields),
      await endOfMonth.contract(fields),
      await thirty.contract(prepaidFields),
      await endOfMonth.contract(prepaidFields),
    ];
    // Runs at each cycle's boundary: each invoice is issued (finalized) by the run that makes it.
    for (const at of ["2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z"]) {
      await thirty.run(at);
      await endOfMonth.run(at);
    }
    const dueDates = async (account: typeof thirty, id: string) =>
      (await account.invoices(id)).map((invoice) => invoice.dueDate);
    // Jan cycle issued at its end, Feb 1: + 30 days = Mar 2 (February 2024 has 29 days); END_OF_MONTH: Feb 29.
    expect(await dueDates(thirty, a.id)).toEqual([day("2024-03-02")]);
    expect(await dueDates(endOfMonth, b.id)).toEqual([day("2024-02-29")]);
    // Prepaid: Jan issued Jan 1 (+30 = Jan 31), Feb issued Feb 1 (+30 = Mar 2); END_OF_MONTH: Jan 31, Feb 29.
    expect(await dueDates(thirty, c.id)).toEqual([day("2024-01-31"), day("2024-03-02")]);
    expect(await dueDates(endOfMonth, d.id)).toEqual([day("2024-01-31"), day("2024-02-29")]);
  });

  it("END_OF_MONTH: an invoice issued on the month's last day is due at the end of the next month", async () => {
    const account = await billingAccount(server, { dueDays: "END_OF_MONTH" });
    // Monthly on the 31st (the 29th in February 2024, the 30th in April), in arrears.
    const contract = await account.contract({
      startDate: "2024-01-31T00:00:00Z",
      endDate: "2024-05-01T00:00:00Z",
      products: [committed(1, 10, 31)],
    });
    // A run at each cycle's end issues that cycle's invoice.
    for (const at of ["2024-02-29", "2024-03-31", "2024-04-30", "2024-05-01"]) await account.run(`${at}T00:00:00Z`);
    const invoices = await account.invoices(contract.id);
    // Issued Feb 29 → due Mar 31 (not Feb 29, its own issue instant); Mar 31 → Apr 30; Apr 30 → May 31;
    // the last cycle, cut at the end, issued May 1 → May 31.
    expect(invoices.map((invoice) => [invoice.billingCycle.endTime, invoice.dueDate])).toEqual([
      [day("2024-02-29"), day("2024-03-31")],
      [day("2024-03-31"), day("2024-04-30")],
      [day("2024-04-30"), day("2024-05-31")],
      [day("2024-05-01"), day("2024-05-31")],
    ]);
  });
});
