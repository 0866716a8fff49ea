import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { type BillingAccount, billingAccount, monthly, usageProduct } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/** Deal terms (docs/decisions.md, "Deal terms"): minimums, maximums, discounts; every amount worked out by hand. */
const server = useTestServer();

const tokens = (extra: Record<string, unknown>) => ({
  ...usageProduct("Tokens", "tokens", { type: "PER_UNIT", price: 0.002 }),
  ...extra,
});

/** The invoices of a contract from 2024-01-01 billed up to `until`. */
async function invoicesOf(account: BillingAccount, fields: Record<string, unknown>, until = "2024-02-01T00:00:00Z") {
  const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", ...fields });
  await account.run(until);
  return account.invoices(contract.id);
}

const lines = (invoice: any) =>
  invoice.lineItems.map((line: any) => ({
    name: line.name,
    kind: line.kind,
    subtotal: line.revenueBreakdown.subtotal,
    discount: line.revenueBreakdown.discount,
  }));

describe("minimums and maximums per product", () => {
  it("a usage line below its minimum is raised by a true-up line", async () => {
    const account = await billingAccount(server);
    await account.measure("tokens", "2024-01-10", 20_000);
    const [invoice] = await invoicesOf(account, { products: [tokens({ minimum: 100 })] });
    // 20,000 × 0.002 = 40.00; minimum 100.00 → 60.00 true-up; 40 + 60 = 100.00.
    expect(lines(invoice)).toEqual([
      { name: "Tokens", kind: "USAGE", subtotal: 40, discount: 0 },
      { name: "Minimum for Tokens", kind: "MINIMUM", subtotal: 60, discount: 0 },
    ]);
    expect(invoice.revenueBreakdown).toMatchObject({ subtotal: 100, total: 100 });
  });

  it("above its maximum, a MAXIMUM line takes the excess off with a negative amount", async () => {
    const account = await billingAccount(server);
    await account.measure("tokens", "2024-01-10", 40_000);
    const [invoice] = await invoicesOf(account, { products: [tokens({ maximum: 50 })] });
    // 40,000 × 0.002 = 80.00; maximum 50.00 → −30.00; 80 − 30 = 50.00.
    expect(lines(invoice)).toEqual([
      { name: "Tokens", kind: "USAGE", subtotal: 80, discount: 0 },
      { name: "Maximum for Tokens", kind: "MAXIMUM", subtotal: -30, discount: 0 },
    ]);
    expect(invoice.lineItems[1].revenueBreakdown.total).toBe(-30);
    expect(invoice.revenueBreakdown).toMatchObject({ subtotal: 50, total: 50 });
  });

  it("a partial cycle prorates the minimum by days", async () => {
    const account = await billingAccount(server);
    // January 17 to 31: 15 of 31 days; minimum 100.00 × 15 / 31 = 48.387… → 48.39; no usage → 48.39 true-up.
    const contract = await account.contract({
      startDate: "2024-01-17T00:00:00Z",
      products: [tokens({ minimum: 100 })],
    });
    await account.run("2024-02-01T00:00:00Z");
    const [invoice] = await account.invoices(contract.id);
    expect(lines(invoice)).toContainEqual({
      name: "Minimum for Tokens",
      kind: "MINIMUM",
      subtotal: 48.39,
      discount: 0,
    });
  });

  it("refuses a minimum above the maximum, and deal terms on a group's product", async () => {
    const account = await billingAccount(server);
    const refused = await server.rest("POST", "/contracts", {
      token: account.token,
      body: {
        customerId: account.customerId,
        name: "Bad",
        startDate: "2024-01-01T00:00:00Z",
        products: [tokens({ minimum: 100, maximum: 50 })],
        productGroups: [{ displayName: "G", products: [{ displayName: "P", minimum: 5 }] }],
      },
    });
    expectError(refused, 400, "BAD_REQUEST");
    const paths = refused.body.issues.map((issue: any) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(["products.0.maximum", "productGroups.0.products.0.minimum"]));
  });
});

describe("the contract's minimum commitment", () => {
  it("1,000.00 a cycle with 640.00 of charges: a 360.00 true-up, taxed at the contract's rates", async () => {
    const account = await billingAccount(server);
    await account.post("/tax-rates", { code: "VAT20", name: "VAT20 20 %", rate: 20, inclusive: false }, 201);
    const [invoice] = await invoicesOf(account, {
      products: [{ displayName: "Platform", scheduling: monthly(1), pricing: { type: "FLAT", price: 640 } }],
      minimumCommitment: { amount: 1000, period: "CYCLE" },
      taxRateCodes: ["VAT20"],
    });
    // 640.00 + 360.00 true-up = 1,000.00; tax 20 % of each: 128.00 + 72.00 = 200.00; total 1,200.00.
    expect(lines(invoice)).toEqual([
      { name: "Platform", kind: "FLAT", subtotal: 640, discount: 0 },
      { name: "Minimum commitment", kind: "MINIMUM", subtotal: 360, discount: 0 },
    ]);
    expect(invoice.lineItems[1].revenueBreakdown.tax).toBe(72);
    expect(invoice.revenueBreakdown).toMatchObject({ subtotal: 1000, tax: 200, total: 1200 });
  });

  it("TERM: the term's last invoice trues up what the term charged", async () => {
    const account = await billingAccount(server);
    const invoices = await invoicesOf(
      account,
      {
        endDate: "2024-04-01T00:00:00Z",
        autoRenewContract: false,
        products: [{ displayName: "Platform", scheduling: monthly(1), pricing: { type: "FLAT", price: 200 } }],
        minimumCommitment: { amount: 1000, period: "TERM" },
      },
      "2024-04-01T00:00:00Z",
    );
    // 3 × 200.00 = 600.00 over the term; the March invoice adds 1,000.00 − 600.00 = 400.00.
    expect(invoices.map((invoice: any) => invoice.revenueBreakdown.subtotal)).toEqual([200, 200, 600]);
    expect(lines(invoices[2]).at(-1)).toEqual({
      name: "Minimum commitment",
      kind: "MINIMUM",
      subtotal: 400,
      discount: 0,
    });
  });
});

describe("discounts", () => {
  it("20 % off the first 3 cycles of a 500.00 fee: 400, 400, 400, then 500", async () => {
    const account = await billingAccount(server);
    const invoices = await invoicesOf(
      account,
      {
        products: [
          {
            displayName: "Platform",
            scheduling: monthly(1),
            pricing: { type: "FLAT", price: 500 },
            discounts: [{ type: "PERCENT", value: 20, cycles: 3 }],
          },
        ],
      },
      "2024-05-01T00:00:00Z",
    );
    // 500.00 × 20 % = 100.00 off in January, February and March; April is billed whole.
    expect(invoices.map((invoice: any) => invoice.revenueBreakdown.total)).toEqual([400, 400, 400, 500]);
    expect(invoices.map((invoice: any) => invoice.revenueBreakdown.discount)).toEqual([100, 100, 100, 0]);
    expect(invoices[0].lineItems[0].revenueBreakdown.discount).toBe(100);
  });

  it("a contract's AMOUNT discount is shared out over the lines and never makes one negative", async () => {
    const account = await billingAccount(server);
    await account.measure("tokens", "2024-01-10", 40_000);
    const [invoice] = await invoicesOf(account, {
      products: [
        { displayName: "Platform", scheduling: monthly(1), pricing: { type: "FLAT", price: 30 } },
        tokens({ maximum: 50 }),
      ],
      discounts: [{ type: "AMOUNT", value: 100 }],
    });
    // Charges 30.00 + 80.00 − 30.00 (maximum) = 80.00: the 100.00 off takes 80.00, all of it. Shared by what each
    // line has to take off (30.00 and 80.00 of 110.00): 80 × 30/110 = 21.81…, 80 × 80/110 = 58.18… floored, the cent
    // left to the first: 21.82 + 58.18 = 80.00; the MAXIMUM line takes none.
    expect(lines(invoice)).toEqual([
      { name: "Platform", kind: "FLAT", subtotal: 30, discount: 21.82 },
      { name: "Tokens", kind: "USAGE", subtotal: 80, discount: 58.18 },
      { name: "Maximum for Tokens", kind: "MAXIMUM", subtotal: -30, discount: 0 },
    ]);
    expect(invoice.revenueBreakdown).toMatchObject({ subtotal: 80, discount: 80, total: 0 });
  });

  it("a contract's discount of named products: taxed after the discount", async () => {
    const account = await billingAccount(server);
    await account.post("/tax-rates", { code: "VAT10", name: "VAT10 10 %", rate: 10, inclusive: false }, 201);
    const [invoice] = await invoicesOf(account, {
      products: [
        { displayName: "Platform", scheduling: monthly(1), pricing: { type: "FLAT", price: 100 } },
        { displayName: "Support", scheduling: monthly(1), pricing: { type: "FLAT", price: 50 } },
      ],
      discounts: [{ type: "PERCENT", value: 12.5, products: ["Support"] }],
      taxRateCodes: ["VAT10"],
    });
    // Support 50.00 × 12.5 % = 6.25 off → 43.75; tax 10 %: 10.00 + 4.375 → 4.38; total 100 + 43.75 + 14.38 = 158.13.
    expect(lines(invoice)).toEqual([
      { name: "Platform", kind: "FLAT", subtotal: 100, discount: 0 },
      { name: "Support", kind: "FLAT", subtotal: 50, discount: 6.25 },
    ]);
    expect(invoice.revenueBreakdown).toMatchObject({ subtotal: 150, discount: 6.25, tax: 14.38, total: 158.13 });
  });
});

describe("deal terms amended (PATCH /contracts/{id} with effectiveFrom)", () => {
  const fee = (price: number) => ({
    displayName: "Platform",
    scheduling: monthly(1),
    pricing: { type: "FLAT", price },
  });
  const patch = (account: BillingAccount, id: string, body: unknown) =>
    server.rest("PATCH", `/contracts/${id}`, { token: account.token, body });

  it("a 20 % discount added from the 2nd cycle of a 500.00 fee: 500, then 400; a commitment from the 3rd", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [fee(500)] });
    const discounted = await patch(account, contract.id, {
      discounts: [{ type: "PERCENT", value: 20 }],
      effectiveFrom: "2024-02-01T00:00:00Z",
    });
    expect(discounted.status, JSON.stringify(discounted.body)).toBe(200);
    expect(discounted.body.contract.discounts).toEqual([{ type: "PERCENT", value: 20 }]);
    await account.run("2024-03-01T00:00:00Z");
    // January is priced by the terms in force on Jan 1 (none): 500.00. February: 500.00 − 20 % = 400.00.
    const first = await account.invoices(contract.id);
    expect(first.map((invoice: any) => invoice.revenueBreakdown.total)).toEqual([500, 400]);
    expect(first.map((invoice: any) => invoice.revenueBreakdown.discount)).toEqual([0, 100]);
    // A day an invoice covers stands (409); no effectiveFrom is 400.
    const late = await patch(account, contract.id, { discounts: [], effectiveFrom: "2024-02-15T00:00:00Z" });
    expectError(late, 409, "CONFLICT");
    expectError(await patch(account, contract.id, { discounts: [] }), 400, "BAD_REQUEST");
    // From March: no discount, a 1,000.00 minimum commitment a cycle: 500.00 + a 500.00 true-up.
    const committed = await patch(account, contract.id, {
      discounts: [],
      minimumCommitment: { amount: 1000, period: "CYCLE" },
      effectiveFrom: "2024-03-01T00:00:00Z",
    });
    expect(committed.status, JSON.stringify(committed.body)).toBe(200);
    expect(committed.body.contract).toMatchObject({ minimumCommitment: { amount: 1000, period: "CYCLE" } });
    expect(committed.body.contract.discounts).toBeUndefined();
    await account.run("2024-04-01T00:00:00Z");
    const all = await account.invoices(contract.id);
    expect(all.map((invoice: any) => invoice.revenueBreakdown.total)).toEqual([500, 400, 1000]);
    expect(lines(all[2])).toEqual([
      { name: "Platform", kind: "FLAT", subtotal: 500, discount: 0 },
      { name: "Minimum commitment", kind: "MINIMUM", subtotal: 500, discount: 0 },
    ]);
    const { body } = await server.rest("GET", `/contracts/${contract.id}/history`, { token: account.token });
    expect(body.history.filter((entry: any) => entry.kind === "amendment").map((entry: any) => entry.fields)).toEqual([
      ["discounts"],
      ["discounts", "minimumCommitment"],
    ]);
  });
});
