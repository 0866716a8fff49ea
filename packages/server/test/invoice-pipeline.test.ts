import type { Contract } from "@billing/shared";
import { describe, expect, it } from "vitest";
import type { InvoiceBasis } from "../src/domain/billing/invoice.js";
import { plannedInvoices } from "../src/domain/billing/items.js";
import {
  amountDueMicros,
  applyCreditNotes,
  applyCredits,
  applyDiscounts,
  applyTaxes,
  chargeLines,
  composeInvoice,
  type InvoiceLine,
  linesStage,
  totalInvoice,
} from "../src/domain/billing/pipeline.js";
import { NO_TAX } from "../src/domain/billing/tax.js";
import { asMicros } from "../src/domain/money/micros.js";
import { contractInMicros } from "../src/presenters/contracts.js";
import { presentInvoiceDraft } from "../src/presenters/invoices.js";

// Each stage of invoice composition on its own (docs/decisions.md, "Invoice pipeline"); amounts worked out by hand.

const USD = 1_000_000;

/** A monthly arrears contract from 2024-01-01: a 10 USD ONE_TIME fee, 2 USD FLAT, 0.5 USD PER_UNIT on meter "api". */
const contract = contractInMicros({
  id: "0123456789abcdef01234567",
  customerId: "89abcdef0123456789abcdef",
  name: "Pipeline",
  currency: "USD",
  startDate: "2024-01-01T00:00:00.000Z",
  autoRenewContract: true,
  status: "Active",
  createdAt: "2024-01-01T00:00:00.000Z",
  updatedAt: "2024-01-01T00:00:00.000Z",
  products: [
    { displayName: "Setup", pricing: { type: "ONE_TIME", price: 10 } },
    { displayName: "Base", pricing: { type: "FLAT", price: 2 } },
    { displayName: "API", catalogProductId: "api", pricing: { type: "PER_UNIT", price: 0.5 } },
  ],
} as Contract);

const [january] = plannedInvoices(contract, new Date("2024-01-15T00:00:00.000Z"));
if (!january) throw new Error("the contract has a January invoice");
// Usage of each charge, in the order of the invoice's charges: only "API" has a meter (7 units).
const basis: InvoiceBasis = {
  contract,
  cycle: january,
  usage: january.charges.map(({ item }) => new Map(item.meters.map((meter) => [meter, 7n * BigInt(USD)]))),
  issuedAt: new Date("2024-02-01T00:00:00.000Z"),
  paymentTerms: { netDays: 30 },
  tax: NO_TAX,
};

const line = (name: string, subtotalMicros: number): InvoiceLine => ({
  name,
  kind: "FLAT",
  subtotalMicros: asMicros(subtotalMicros),
  overageMicros: asMicros(0),
  discountMicros: asMicros(0),
  taxes: [],
  creditsUsedMicros: asMicros(0),
});

describe("invoice pipeline stages", () => {
  it("lines: each price by its charge model, nothing taken off or added yet", () => {
    const lines = linesStage(basis);
    expect(lines.map(({ name, kind, subtotalMicros }) => ({ name, kind, subtotalMicros }))).toEqual([
      { name: "Setup", kind: "ONE_TIME", subtotalMicros: 10 * USD },
      { name: "Base", kind: "FLAT", subtotalMicros: 2 * USD },
      // 7 units × 0.5 USD
      { name: "API", kind: "USAGE", subtotalMicros: 3_500_000 },
    ]);
    expect(lines.every((each) => each.discountMicros + each.taxes.length + each.creditsUsedMicros === 0)).toBe(true);
    // 10 + 2 + 3.5
    expect(amountDueMicros(lines)).toBe(15_500_000);
  });

  it("discounts and credit notes: the identity until their issues land; taxes: the identity with no rate", () => {
    const lines = [line("a", 1 * USD), line("b", 2 * USD)];
    expect(applyDiscounts(lines, basis)).toEqual(lines);
    expect(applyTaxes(lines, NO_TAX)).toEqual(lines);
    expect(applyCreditNotes(lines)).toEqual(lines);
    expect(chargeLines(basis)).toEqual(linesStage(basis));
  });

  it("credits: whole cents pay the lines in order, each up to what it asks", () => {
    // 2.509999 USD of credits: 2.50 usable; 1 USD on line a, 1.50 of line b's 2 USD.
    const paid = applyCredits([line("a", 1 * USD), line("b", 2 * USD), line("c", 3 * USD)], asMicros(2_509_999), "USD");
    expect(paid.map((each) => each.creditsUsedMicros)).toEqual([1 * USD, 1_500_000, 0]);
    expect(applyCredits([line("a", 1 * USD)], asMicros(9_999), "USD").map((each) => each.creditsUsedMicros)).toEqual([
      0,
    ]);
  });

  it("totals: line and invoice breakdowns, amount equal to total (shown in decimals)", () => {
    const paid = applyCredits(chargeLines(basis), asMicros(4 * USD), "USD");
    const invoice = presentInvoiceDraft(totalInvoice(basis, paid));
    // 15.5 USD asked; the first line (Setup) asks 10 USD, so all 4 USD of credits pay it.
    expect(invoice.lineItems.map((item) => item.revenueBreakdown.creditsUsed)).toEqual([4, 0, 0]);
    expect(invoice.revenueBreakdown).toEqual({
      subtotal: 15.5,
      overage: 0,
      discount: 0,
      creditsUsed: 4,
      tax: 0,
      taxInclusive: 0,
      total: 11.5,
    });
    expect(invoice.amount).toBe(11.5);
    expect(invoice.billingCycle).toEqual({
      startTime: "2024-01-01T00:00:00.000Z",
      endTime: "2024-02-01T00:00:00.000Z",
    });
    // Arrears, issued at the end of the cycle; 30 days later without END_OF_MONTH terms.
    expect(invoice.dueDate).toBe("2024-03-02T00:00:00.000Z");
  });

  it("composeInvoice: limits checked on the unpaid invoice, then credits paid on what the lines ask", async () => {
    const steps: string[] = [];
    const invoice = await composeInvoice(basis, {
      check: (unpaid) => {
        // 10 + 2 + 3.5 = 15.5 USD, nothing paid yet.
        steps.push(`check ${unpaid.amountMicros}`);
        return unpaid;
      },
      payFromCredits: async (dueMicros) => {
        steps.push(`pay of ${dueMicros}`);
        return asMicros(4 * USD);
      },
    });
    expect(steps).toEqual(["check 15500000", "pay of 15500000"]);
    // 15.5 − 4 = 11.5 USD, the 4 USD on the first line (Setup, 10 USD).
    expect(invoice.amountMicros).toBe(11_500_000);
    expect(invoice.lineItems.map((line) => line.revenueBreakdown.creditsUsed)).toEqual([4 * USD, 0, 0]);
  });

  it("composeInvoice: refused limits stop before any credit is spent; an empty invoice is paid nothing", async () => {
    let paid = 0;
    const payFromCredits = async () => {
      paid += 1;
      return asMicros(USD);
    };
    const refuse = () => {
      throw new Error("over the limits");
    };
    await expect(composeInvoice(basis, { check: refuse, payFromCredits })).rejects.toThrow("over the limits");
    // February: the ONE_TIME fee bills only the first cycle, but Base and API bill every month; a basis with no
    // charge at all has no line.
    const empty = await composeInvoice(
      { ...basis, cycle: { ...january, charges: [] }, usage: [] },
      {
        check: (unpaid) => unpaid,
        payFromCredits,
      },
    );
    expect(empty.lineItems).toEqual([]);
    expect(paid).toBe(0);
  });
});
