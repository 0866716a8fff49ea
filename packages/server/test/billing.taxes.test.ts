import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { type BillingAccount, billingAccount, committed, monthly } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { ADMIN_TOKEN } from "./support/server.js";

/** Taxes on invoices (docs/decisions.md, "Taxes"): every amount worked out by hand in the comments. */
const server = useTestServer();

const taxRate = (account: BillingAccount, code: string, rate: number, inclusive = false) =>
  account.post("/tax-rates", { code, name: `${code} ${rate} %`, rate, inclusive }, 201);

/** The one invoice of a contract billed for January 2024. */
async function januaryInvoice(account: BillingAccount, fields: Record<string, unknown>) {
  const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", ...fields });
  await account.run("2024-02-01T00:00:00Z");
  const [invoice] = await account.invoices(contract.id);
  return invoice;
}

const tax = (code: string, rate: number, taxableAmount: number, amount: number, inclusive = false) => ({
  code,
  name: `${code} ${rate} %`,
  rate,
  inclusive,
  taxableAmount,
  amount,
});

describe("taxes on invoices", () => {
  it("exclusive 20 % VAT is added per line before credits, and credits pay the tax too", async () => {
    const account = await billingAccount(server);
    await taxRate(account, "VAT20", 20);
    await account.grant(300);
    const invoice = await januaryInvoice(account, { products: [committed(10, 99.99)], taxRateCodes: ["VAT20"] });
    // 10 × 99.99 = 999.90; tax 999.90 × 20 % = 199.98; 999.90 + 199.98 = 1199.88; credits 300 → 899.88 due.
    expect(invoice.revenueBreakdown).toEqual({
      subtotal: 999.9,
      overage: 0,
      discount: 0,
      tax: 199.98,
      taxInclusive: 0,
      creditsUsed: 300,
      total: 899.88,
    });
    expect(invoice.amount).toBe(899.88);
    expect(invoice.lineItems[0].taxes).toEqual([tax("VAT20", 20, 999.9, 199.98)]);
    expect(invoice.taxSummary).toEqual([tax("VAT20", 20, 999.9, 199.98)]);
    expect(invoice.taxExempt).toBe(false);
    // 300 − 300 = 0 left on the balance.
    expect(await account.balance()).toBe(0);
  });

  it("inclusive 19 % is split out of the price: the total is unchanged", async () => {
    const account = await billingAccount(server);
    await taxRate(account, "MWST19", 19, true);
    const invoice = await januaryInvoice(account, { products: [committed(1, 100)], taxRateCodes: ["MWST19"] });
    // 100.00 × 19 / 119 = 15.966… → 15.97 (half up, to the cent); net 100.00 − 15.97 = 84.03; total stays 100.00:
    // the included tax is `taxInclusive`, and `tax` (what is added) is 0, so 100 + 0 + 0 − 0 + 0 − 0 = 100.
    const expected = {
      subtotal: 100,
      overage: 0,
      discount: 0,
      tax: 0,
      taxInclusive: 15.97,
      creditsUsed: 0,
      total: 100,
    };
    expect(invoice.revenueBreakdown).toEqual(expected);
    expect(invoice.lineItems[0].revenueBreakdown).toEqual(expected);
    expect(invoice.lineItems[0].taxes).toEqual([tax("MWST19", 19, 84.03, 15.97, true)]);
    expect(invoice.taxSummary).toEqual([tax("MWST19", 19, 84.03, 15.97, true)]);
  });

  it("inclusive and exclusive on one line, paid in part by credits: the breakdown's identity holds", async () => {
    const account = await billingAccount(server);
    await taxRate(account, "INCL10", 10, true);
    await taxRate(account, "EXCL5", 5);
    await account.grant(50);
    const invoice = await januaryInvoice(account, {
      products: [committed(1, 110), committed(1, 20, 1, { displayName: "Support", taxRateCodes: ["EXCL5"] })],
      taxRateCodes: ["INCL10", "EXCL5"],
    });
    // Seats 110.00 incl. 10 %: 110 × 10 / 110 = 10.00 included, net 100.00; 5 % on the net = 5.00 added; the line asks
    // 110 + 5 = 115.00, and the grant's 50.00 pays it first → 65.00. Support 20.00 + 5 % = 1.00 → 21.00, no credit
    // left. Invoice: subtotal 130, tax 5 + 1 = 6, included 10, credits 50: 130 − 0 + 6 − 50 = 86.00.
    expect(invoice.lineItems.map((line: any) => line.revenueBreakdown)).toEqual([
      { subtotal: 110, overage: 0, discount: 0, tax: 5, taxInclusive: 10, creditsUsed: 50, total: 65 },
      { subtotal: 20, overage: 0, discount: 0, tax: 1, taxInclusive: 0, creditsUsed: 0, total: 21 },
    ]);
    expect(invoice.revenueBreakdown).toEqual({
      subtotal: 130,
      overage: 0,
      discount: 0,
      tax: 6,
      taxInclusive: 10,
      creditsUsed: 50,
      total: 86,
    });
    expect(invoice.amount).toBe(86);
    expect(invoice.taxSummary).toEqual([tax("INCL10", 10, 100, 10, true), tax("EXCL5", 5, 120, 6)]);
  });

  it("an invoice stored before taxInclusive existed reads with its included tax taken out of `tax`", async () => {
    const account = await billingAccount(server);
    await taxRate(account, "MWST19", 19, true);
    const contract = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      products: [committed(1, 100), committed(1, 10, 1, { displayName: "Fee" })],
      taxRateCodes: ["MWST19"],
    });
    await account.run("2024-02-01T00:00:00Z");
    // As the engine stored it before: every tax in `tax`, no `taxInclusive`. 100 × 19 / 119 = 15.97;
    // 10 × 19 / 119 = 1.596… → 1.60; 15.97 + 1.60 = 17.57 in micro-units.
    await server.service.db.collection("invoices").updateOne(
      { accountId: account.accountId, contractId: contract.id },
      {
        $set: {
          "revenueBreakdown.tax": 17_570_000,
          "lineItems.0.revenueBreakdown.tax": 15_970_000,
          "lineItems.1.revenueBreakdown.tax": 1_600_000,
        },
        $unset: {
          "revenueBreakdown.taxInclusive": "",
          "lineItems.0.revenueBreakdown.taxInclusive": "",
          "lineItems.1.revenueBreakdown.taxInclusive": "",
        },
      },
    );
    const [invoice] = await account.invoices(contract.id);
    expect(invoice.revenueBreakdown).toMatchObject({ subtotal: 110, tax: 0, taxInclusive: 17.57, total: 110 });
    expect(
      invoice.lineItems.map((line: any) => [line.revenueBreakdown.tax, line.revenueBreakdown.taxInclusive]),
    ).toEqual([
      [0, 15.97],
      [0, 1.6],
    ]);
  });

  it("two rates on one level add up on each line, each rounded on its own", async () => {
    const account = await billingAccount(server);
    await taxRate(account, "STATE", 6.25);
    await taxRate(account, "CITY", 2.5);
    const invoice = await januaryInvoice(account, {
      products: [committed(10, 99.99), committed(1, 0.1, 1, { displayName: "Fee" })],
      taxRateCodes: ["STATE", "CITY"],
    });
    // Seats 999.90: state 62.49375 → 62.49, city 24.9975 → 25.00. Fee 0.10: state 0.00625 → 0.01, city 0.0025 → 0.00.
    expect(invoice.lineItems.map((line: any) => line.taxes)).toEqual([
      [tax("STATE", 6.25, 999.9, 62.49), tax("CITY", 2.5, 999.9, 25)],
      [tax("STATE", 6.25, 0.1, 0.01), tax("CITY", 2.5, 0.1, 0)],
    ]);
    // Tax 62.49 + 25.00 + 0.01 + 0.00 = 87.50; total 999.90 + 0.10 + 87.50 = 1087.50.
    expect(invoice.revenueBreakdown).toMatchObject({ subtotal: 1000, tax: 87.5, total: 1087.5 });
    expect(invoice.taxSummary).toEqual([tax("STATE", 6.25, 1000, 62.5), tax("CITY", 2.5, 1000, 25)]);
  });

  it("a tax-exempt customer pays no tax, and the invoice says so", async () => {
    const account = await billingAccount(server, { taxExempt: true });
    await taxRate(account, "VAT20", 20);
    await server.rest("PATCH", `/admin/accounts/${account.accountId}`, {
      token: ADMIN_TOKEN,
      body: { defaultTaxRateCodes: ["VAT20"] },
    });
    const invoice = await januaryInvoice(account, { products: [committed(1, 100)], taxRateCodes: ["VAT20"] });
    expect(invoice.taxExempt).toBe(true);
    expect(invoice.revenueBreakdown).toMatchObject({ subtotal: 100, tax: 0, total: 100 });
    expect(invoice.lineItems[0].taxes).toEqual([]);
    expect(invoice.taxSummary).toEqual([]);
  });

  it("the most specific level naming a rate applies: product > contract > customer > account", async () => {
    const account = await billingAccount(server, { name: "Untaxed Co" });
    for (const [code, rate] of [
      ["PRODUCT", 1],
      ["CONTRACT", 2],
      ["CUSTOMER", 5],
      ["ACCOUNT", 10],
    ] as const)
      await taxRate(account, code, rate);
    const patched = await server.rest("PATCH", `/admin/accounts/${account.accountId}`, {
      token: ADMIN_TOKEN,
      body: { defaultTaxRateCodes: ["ACCOUNT"] },
    });
    expect(patched.body.account.defaultTaxRateCodes).toEqual(["ACCOUNT"]);
    const named = await account.newCustomer({ name: "Named Co", taxRateCodes: ["CUSTOMER"] });

    const byContract = await januaryInvoice(account, {
      customerId: named,
      taxRateCodes: ["CONTRACT"],
      products: [
        committed(1, 100, 1, { displayName: "Own", taxRateCodes: ["PRODUCT"] }),
        // An empty list names none: the contract's rate applies.
        committed(1, 100, 1, { displayName: "Empty", taxRateCodes: [] }),
      ],
    });
    // 100 × 1 % = 1.00; 100 × 2 % = 2.00.
    expect(byContract.lineItems.map((line: any) => [line.name, line.revenueBreakdown.tax])).toEqual([
      ["Own commitment", 1],
      ["Empty commitment", 2],
    ]);
    // 100 × 5 % = 5.00 (the customer's); 100 × 10 % = 10.00 (the account's, for a customer naming none).
    const byCustomer = await januaryInvoice(account, { customerId: named, products: [committed(1, 100)] });
    expect(byCustomer.revenueBreakdown).toMatchObject({ tax: 5, total: 105 });
    const byAccount = await januaryInvoice(account, { products: [committed(1, 100)] });
    expect(byAccount.revenueBreakdown).toMatchObject({ tax: 10, total: 110 });
  });

  it("a product group's rates tax its line and its products' lines unless a product names its own", async () => {
    const account = await billingAccount(server);
    await taxRate(account, "GROUP", 10);
    await taxRate(account, "OWN", 20);
    const invoice = await januaryInvoice(account, {
      productGroups: [
        {
          displayName: "Bundle",
          baseAmount: 50,
          taxRateCodes: ["GROUP"],
          products: [
            { displayName: "Support", pricing: { type: "FLAT", price: 30 }, taxRateCodes: ["OWN"] },
            { displayName: "Hosting", pricing: { type: "FLAT", price: 20 } },
          ],
        },
      ],
    });
    // Bundle 50 × 10 % = 5.00; Support 30 × 20 % = 6.00; Hosting 20 × 10 % = 2.00 → tax 13.00, total 113.00.
    expect(invoice.lineItems.map((line: any) => [line.name, line.revenueBreakdown.tax])).toEqual([
      ["Bundle", 5],
      ["Support", 6],
      ["Hosting", 2],
    ]);
    expect(invoice.revenueBreakdown).toMatchObject({ subtotal: 100, tax: 13, total: 113 });
  });

  it("an archived rate is refused for new terms (400 naming the field); an unknown code too", async () => {
    const account = await billingAccount(server);
    await taxRate(account, "OLD", 7);
    await server.rest("DELETE", "/tax-rates/OLD", { token: account.token });
    const refused = await server.rest("POST", "/contracts", {
      token: account.token,
      body: {
        customerId: account.customerId,
        name: "Plan",
        startDate: "2024-01-01T00:00:00Z",
        products: [committed(1, 100, 1, { taxRateCodes: ["OLD"] })],
        taxRateCodes: ["NOPE"],
      },
    });
    expectError(refused, 400, "BAD_REQUEST");
    expect(refused.body.issues).toEqual([
      { path: "taxRateCodes.0", message: 'no tax rate has code "NOPE"' },
      { path: "products.0.taxRateCodes.0", message: 'tax rate "OLD" is archived' },
    ]);
    const customer = await server.rest("POST", "/customers", {
      token: account.token,
      body: { name: "Other", taxRateCodes: ["OLD"] },
    });
    expectError(customer, 400, "BAD_REQUEST");
    expect(customer.body.issues.map((issue: any) => issue.path)).toEqual(["taxRateCodes.0"]);
    const settings = await server.rest("PATCH", `/admin/accounts/${account.accountId}`, {
      token: ADMIN_TOKEN,
      body: { defaultTaxRateCodes: ["NOPE"] },
    });
    expectError(settings, 400, "BAD_REQUEST");
    expect(settings.body.issues.map((issue: any) => issue.path)).toEqual(["defaultTaxRateCodes.0"]);
  });

  it("a finalized invoice keeps the rate it was priced with; a rate archived later prices no new invoice", async () => {
    const account = await billingAccount(server);
    await taxRate(account, "VAT20", 20);
    const contract = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      products: [committed(1, 100)],
      taxRateCodes: ["VAT20"],
    });
    await account.run("2024-02-01T00:00:00Z");
    await server.rest("DELETE", "/tax-rates/VAT20", { token: account.token });
    await account.run("2024-03-01T00:00:00Z");
    const [january, february] = await account.invoices(contract.id);
    // January: 100 + 20 % = 120.00, finalized before the archival; February: priced after it, untaxed.
    expect(january).toMatchObject({ status: "FINALIZED", revenueBreakdown: { tax: 20, total: 120 } });
    expect(january.lineItems[0].taxes).toEqual([tax("VAT20", 20, 100, 20)]);
    expect(february.revenueBreakdown).toMatchObject({ tax: 0, total: 100 });
  });

  it("an amended cycle taxes each version's days with that version's rates (issue 40)", async () => {
    const account = await billingAccount(server);
    await taxRate(account, "VAT20", 20);
    await taxRate(account, "EX5", 5);
    const platform = (price: number, code: string) => ({
      displayName: "Platform",
      scheduling: monthly(1),
      pricing: { type: "FLAT", price },
      taxRateCodes: [code],
    });
    const contract = await account.contract({ startDate: "2025-04-01T00:00:00Z", products: [platform(100, "VAT20")] });
    const amended = await server.rest("PATCH", `/contracts/${contract.id}`, {
      token: account.token,
      body: { products: [platform(160, "EX5")], effectiveFrom: "2025-04-11T00:00:00Z" },
    });
    expect(amended.status).toBe(200);
    await account.run("2025-05-01T00:00:00Z");
    const [april] = await account.invoices(contract.id);
    // April has 30 days. Apr 1..10 under version 1: 100 × 10 / 30 = 33.333… → 33.33, VAT 20 % = 6.666 → 6.67.
    // Apr 11..30 under version 2: 160 × 20 / 30 = 106.666… → 106.67, 5 % = 5.3335 → 5.33.
    // 33.33 + 6.67 + 106.67 + 5.33 = 152.00.
    expect(april.lineItems.map((line: any) => [line.version, line.taxes])).toEqual([
      [1, [tax("VAT20", 20, 33.33, 6.67)]],
      [2, [tax("EX5", 5, 106.67, 5.33)]],
    ]);
    expect(april.revenueBreakdown).toMatchObject({ subtotal: 140, tax: 12, total: 152 });
  });
});
