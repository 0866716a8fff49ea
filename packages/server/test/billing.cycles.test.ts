import { describe, expect, it } from "vitest";
import { between, billingAccount, committed, cyclesOf, day, everyMonths, monthly } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/** Billing cycles (docs/decisions.md, "Billing engine" → Time zone, Cycles, One invoice per contract cycle, When). */
const server = useTestServer();

describe("month ends: billingDay clamped to the month's length", () => {
  it("billingDay 31 from 2024-01-31 (leap year): Jan 31 → Feb 29 → Mar 31 → Apr 30", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({ startDate: "2024-01-31T00:00:00Z", products: [committed(1, 10, 31)] });
    // A run at the end of the third cycle makes it (at or after the cycle's end), not the fourth (ends May 31).
    expect(await account.run("2024-04-30T00:00:00Z")).toMatchObject({ invoicesCreated: 3, failures: [] });
    expect(cyclesOf(await account.invoices(contract.id))).toEqual([
      [day("2024-01-31"), day("2024-02-29")],
      [day("2024-02-29"), day("2024-03-31")],
      [day("2024-03-31"), day("2024-04-30")],
    ]);
  });

  it("billingDay 31 from 2023-01-31 (not a leap year): Jan 31 → Feb 28 → Mar 31", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({ startDate: "2023-01-31T00:00:00Z", products: [committed(1, 10, 31)] });
    expect(await account.run("2023-03-31T00:00:00Z")).toMatchObject({ invoicesCreated: 2 });
    expect(cyclesOf(await account.invoices(contract.id))).toEqual([
      [day("2023-01-31"), day("2023-02-28")],
      [day("2023-02-28"), day("2023-03-31")],
    ]);
  });

  it("billingDay 30 lands on Feb 29 in 2024 and Feb 28 in 2023, and back on the 30th in March", async () => {
    const account = await billingAccount(server);
    const leap = await account.contract({ startDate: "2024-01-30T00:00:00Z", products: [committed(1, 10, 30)] });
    const common = await account.contract({ startDate: "2023-01-30T00:00:00Z", products: [committed(1, 10, 30)] });
    await account.run("2024-03-30T00:00:00Z");
    expect(cyclesOf(await account.invoices(leap.id))).toEqual([
      [day("2024-01-30"), day("2024-02-29")],
      [day("2024-02-29"), day("2024-03-30")],
    ]);
    expect(cyclesOf((await account.invoices(common.id)).slice(0, 2))).toEqual([
      [day("2023-01-30"), day("2023-02-28")],
      [day("2023-02-28"), day("2023-03-30")],
    ]);
  });

  it("the first cycle contains the start, even when the billing day comes later in the month", async () => {
    const account = await billingAccount(server);
    // Starts Mar 30 with billingDay 31: Mar 31 is after the start, so the first cycle is Feb 29 → Mar 31.
    const contract = await account.contract({ startDate: "2024-03-30T00:00:00Z", products: [committed(1, 10, 31)] });
    await account.run("2024-04-30T00:00:00Z");
    expect(cyclesOf(await account.invoices(contract.id))).toEqual([
      [day("2024-02-29"), day("2024-03-31")],
      [day("2024-03-31"), day("2024-04-30")],
    ]);
  });

  it("without any scheduling a product is billed monthly on the contract's start day (UTC)", async () => {
    const account = await billingAccount(server);
    // 2024-03-31T01:00+02:00 is 2024-03-30T23:00Z: the start day is the 30th in UTC.
    const contract = await account.contract({
      startDate: "2024-03-31T01:00:00+02:00",
      products: [{ displayName: "Seats", commitment: { units: 1, price: 10 } }],
    });
    await account.run("2024-05-30T00:00:00Z");
    expect(cyclesOf(await account.invoices(contract.id))).toEqual([
      [day("2024-03-30"), day("2024-04-30")],
      [day("2024-04-30"), day("2024-05-30")],
    ]);
  });

  it("a commitment's scheduling applies when the product has none", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2024-01-10T00:00:00Z",
      products: [{ displayName: "Seats", commitment: { units: 1, price: 10, scheduling: monthly(20) } }],
    });
    await account.run("2024-02-20T00:00:00Z");
    // The cycle containing Jan 10 on day 20 is Dec 20 → Jan 20; then Jan 20 → Feb 20.
    expect(cyclesOf(await account.invoices(contract.id))).toEqual([
      [day("2023-12-20"), day("2024-01-20")],
      [day("2024-01-20"), day("2024-02-20")],
    ]);
  });
});

describe("schedules of several months and several items", () => {
  it("a 3-month schedule bills every 3 months, units × price per cycle", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2024-01-15T00:00:00Z",
      products: [committed(10, 100, 1, { scheduling: everyMonths(3, 1) })],
    });
    // Cycles Jan 1 → Apr 1 → Jul 1 → Oct 1; the run on Jun 30 sees only the first one ended.
    expect(await account.run("2024-06-30T00:00:00Z")).toMatchObject({ invoicesCreated: 1 });
    expect(await account.run("2024-07-01T00:00:00Z")).toMatchObject({ invoicesCreated: 1 });
    const invoices = await account.invoices(contract.id);
    expect(cyclesOf(invoices)).toEqual([
      [day("2024-01-01"), day("2024-04-01")],
      [day("2024-04-01"), day("2024-07-01")],
    ]);
    // 10 × 100 = 1000.00 per cycle, in full (no proration asked).
    expect(invoices.map((invoice) => invoice.amount)).toEqual([1000, 1000]);
  });

  it("a 3-month schedule whose billing day is after the start goes back 3 months for its first cycle", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2024-05-15T00:00:00Z",
      products: [committed(1, 10, 20, { scheduling: everyMonths(3, 20) })],
    });
    await account.run("2024-08-20T00:00:00Z");
    expect(cyclesOf(await account.invoices(contract.id))).toEqual([
      [day("2024-02-20"), day("2024-05-20")],
      [day("2024-05-20"), day("2024-08-20")],
    ]);
  });

  it("each item is invoiced on its own cycle: a monthly and a quarterly item never share an invoice", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      products: [
        { displayName: "Monthly", scheduling: monthly(1), commitment: { units: 1, price: 10 } },
        { displayName: "Quarterly", scheduling: everyMonths(3, 1), commitment: { units: 1, price: 300 } },
      ],
    });
    // January's monthly charge is due Feb 1, on its own invoice; the quarter's only on Apr 1.
    expect(await account.run("2024-02-01T00:00:00Z")).toMatchObject({ invoicesCreated: 1 });
    expect(cyclesOf(await account.invoices(contract.id))).toEqual([[day("2024-01-01"), day("2024-02-01")]]);
    // Feb, Mar, and the quarter
    expect(await account.run("2024-04-01T00:00:00Z")).toMatchObject({ invoicesCreated: 3 });
    const invoices = await account.invoices(contract.id);
    expect(cyclesOf(invoices)).toEqual([
      [day("2024-01-01"), day("2024-02-01")],
      [day("2024-02-01"), day("2024-03-01")],
      [day("2024-01-01"), day("2024-04-01")],
      [day("2024-03-01"), day("2024-04-01")],
    ]);
    // 1 × 10 = 10.00 a month; 1 × 300 = 300.00 a quarter.
    expect(invoices.map((invoice) => invoice.amount)).toEqual([10, 10, 300, 10]);
    expect(invoices.map((invoice) => invoice.lineItems.map((line: { name: string }) => line.name))).toEqual([
      ["Monthly commitment"],
      ["Monthly commitment"],
      ["Quarterly commitment"],
      ["Monthly commitment"],
    ]);
  });

  it("a prepaid and an arrears item on the same cycle get two invoices: one at the start, one at the end", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      products: [
        {
          displayName: "Platform",
          scheduling: monthly(1),
          commitment: { units: 1, price: 50 },
          paymentTerm: "Prepayment",
        },
        { displayName: "Seats", scheduling: monthly(1), commitment: { units: 2, price: 10 } },
      ],
    });
    // On Jan 15 only the prepaid January platform fee is due: 1 × 50 = 50.00; the seats wait for Feb 1.
    expect(await account.run("2024-01-15T00:00:00Z")).toMatchObject({ invoicesCreated: 1 });
    let invoices = await account.invoices(contract.id);
    // Issued by this run, Jan 15: due 30 days later, Feb 14.
    expect(invoices.map((invoice) => [invoice.amount, invoice.dueDate])).toEqual([[50, day("2024-02-14")]]);
    // On Feb 1: January's seats in arrears (2 × 10 = 20.00) and February's platform fee in advance (50.00).
    expect(await account.run("2024-02-01T00:00:00Z")).toMatchObject({ invoicesCreated: 2 });
    invoices = await account.invoices(contract.id);
    expect(
      invoices.map((invoice) => [invoice.lineItems[0].name, invoice.amount, invoice.billingCycle.startTime]),
    ).toEqual([
      ["Platform commitment", 50, day("2024-01-01")],
      ["Seats commitment", 20, day("2024-01-01")],
      ["Platform commitment", 50, day("2024-02-01")],
    ]);
  });

  it("cycles stop at endDate (exclusive) and the last one is cut there", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({ ...between("2024-01-01", "2024-03-10"), products: [committed(1, 10)] });
    const exact = await account.contract({ ...between("2024-01-01", "2024-03-01"), products: [committed(1, 10)] });
    expect(await account.run("2025-01-01T00:00:00Z")).toMatchObject({ invoicesCreated: 3 + 2 });
    expect(cyclesOf(await account.invoices(contract.id))).toEqual([
      [day("2024-01-01"), day("2024-02-01")],
      [day("2024-02-01"), day("2024-03-01")],
      [day("2024-03-01"), day("2024-03-10")],
    ]);
    // Ending exactly on a billing day: no cycle starts at the end.
    expect(cyclesOf(await account.invoices(exact.id))).toEqual([
      [day("2024-01-01"), day("2024-02-01")],
      [day("2024-02-01"), day("2024-03-01")],
    ]);
  });

  it("names each invoice after the contract and its cycle", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      name: "Gold",
      startDate: "2024-01-31T00:00:00Z",
      products: [committed(1, 10, 31)],
    });
    await account.run("2024-02-29T00:00:00Z");
    expect((await account.invoices(contract.id)).map((invoice) => invoice.name)).toEqual([
      "Gold: 2024-01-31 to 2024-02-29",
    ]);
  });
});
