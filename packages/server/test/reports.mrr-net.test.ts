import { describe, expect, it } from "vitest";
import type { ContractInMicros } from "../src/domain/billing/contract.js";
import { NO_TAX } from "../src/domain/billing/tax.js";
import { netRecurringMicros } from "../src/domain/reports/mrr-net.js";
import { billingAccount, monthly } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/**
 * MRR net of inclusive tax and of recurring discounts and coupons (issue 49; docs/decisions.md, "MRR"). Every figure
 * below is computed by hand.
 */
const server = useTestServer();

const JAN1 = new Date("2026-01-01T00:00:00Z");
const charge = (micros: number, extra: Partial<Parameters<typeof netRecurringMicros>[1][number]> = {}) => ({
  names: ["Platform"],
  months: 1,
  micros,
  discounts: [],
  ...extra,
});
const contractOf = (fields: Partial<ContractInMicros> = {}) => ({ ...fields }) as ContractInMicros;

describe("net recurring MRR (pure)", () => {
  it("takes 20% off 100.00 and the 25% VAT inside it: 80.00 × 100 / 125 = 64.00", () => {
    const vat = { code: "VAT25", name: "VAT", rate: 25, inclusive: true };
    const tax = { ...NO_TAX, fallbackCodes: [["VAT25"]], liveRates: new Map([["VAT25", vat]]) };
    const contract = contractOf({ discounts: [{ type: "PERCENT", valueMicros: 20_000_000 }] });
    expect(netRecurringMicros(contract, [charge(100_000_000)], JAN1, { tax, coupons: [] })).toBe(64_000_000);
  });

  it("counts recurring discounts only, in force at the instant; an AMOUNT off a quarter is a third a month", () => {
    const promotion = { type: "PERCENT" as const, valueMicros: 50_000_000, cycles: 3 };
    const later = { type: "AMOUNT" as const, valueMicros: 30_000_000, from: "2026-02-01T00:00:00Z" };
    const quarterly = charge(100_000_000, { months: 3, discounts: [promotion, later] });
    // The 50% for 3 cycles is a promotion: not MRR. The 30.00 off a 3-month cycle from Feb 1: 10.00 a month.
    const terms = { tax: NO_TAX, coupons: [] };
    expect(netRecurringMicros(contractOf(), [quarterly], JAN1, terms)).toBe(100_000_000);
    expect(netRecurringMicros(contractOf(), [quarterly], new Date("2026-02-01T00:00:00Z"), terms)).toBe(90_000_000);
  });

  it("shares a contract's AMOUNT over the charges it names in proportion; a coupon counts from its redemption", () => {
    const charges = [charge(60_000_000), charge(30_000_000, { names: ["Support"] }), charge(10_000_000, { names: [] })];
    const contract = contractOf({
      discounts: [{ type: "AMOUNT", valueMicros: 9_000_000, products: ["Platform", "Support"] }],
    });
    const coupon = { type: "PERCENT" as const, valueMicros: 10_000_000, redeemedAt: "2026-01-15T00:00:00Z" };
    const terms = { tax: NO_TAX, coupons: [coupon] };
    // 9.00 off 60.00 + 30.00: 6.00 and 3.00 → 54.00 + 27.00 + 10.00 = 91.00; from Jan 15 10% off all: 81.90.
    expect(netRecurringMicros(contract, charges, JAN1, terms)).toBe(91_000_000);
    expect(netRecurringMicros(contract, charges, new Date("2026-01-15T00:00:00Z"), terms)).toBe(81_900_000);
  });
});

describe("GET /reports/mrr: net of inclusive tax and recurring discounts", () => {
  it("reports a discounted contract under an inclusive VAT, then a coupon redeemed mid-February", async () => {
    const account = await billingAccount(server, {}, { testClock: { at: "2026-02-15T00:00:00Z" } });
    await account.post("/tax-rates", { code: "VAT25", name: "VAT 25 %", rate: 25, inclusive: true }, 201);
    const product = (displayName: string, price: number, extra: Record<string, unknown> = {}) => ({
      displayName,
      scheduling: monthly(1),
      pricing: { type: "FLAT", price },
      ...extra,
    });
    // A: 100.00 a month, 20% off for good: 80.00, of which 25% VAT inside: 80.00 × 100 / 125 = 64.00.
    const a = await account.contract({
      startDate: "2026-01-01T00:00:00Z",
      taxRateCodes: ["VAT25"],
      products: [product("Platform", 100)],
      discounts: [{ type: "PERCENT", value: 20 }],
    });
    // B: 50.00 a month with 10.00 off its first 3 cycles only (a promotion, not MRR): 50.00 × 100 / 125 = 40.00.
    const b = await account.contract({
      startDate: "2026-01-01T00:00:00Z",
      taxRateCodes: ["VAT25"],
      products: [product("Support", 50, { discounts: [{ type: "AMOUNT", value: 10, cycles: 3 }] })],
    });
    const mrr = async () => {
      const query = "from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z&currency=USD";
      const response = await server.rest("GET", `/reports/mrr?${query}`, { token: account.token });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body;
    };
    expect((await mrr()).months.map((month: { mrr: number }) => month.mrr)).toEqual([104, 104]);

    // A 10% coupon for good redeemed on B on Feb 15 (the account's clock): 45.00 × 100 / 125 = 36.00 from then.
    await account.post("/coupons", { code: "TEN", discount: { type: "PERCENT", value: 10 }, duration: "FOREVER" }, 201);
    await account.post(`/contracts/${b.id}/coupons`, { code: "TEN" }, 201);
    const report = await mrr();
    // January 64.00 + 40.00 = 104.00; February 64.00 + 36.00 = 100.00, B's −4.00 a contraction. ARR 1,200.00.
    expect(report.months.map((month: { mrr: number; arr: number }) => [month.mrr, month.arr])).toEqual([
      [104, 1248],
      [100, 1200],
    ]);
    expect(report.months[1].movements.contraction).toEqual({
      amount: -4,
      contracts: [{ contractId: b.id, customerId: account.customerId, before: 40, after: 36 }],
    });
    expect(
      report.months[0].movements.new.contracts.map((move: { contractId: string }) => move.contractId).sort(),
    ).toEqual([a.id, b.id].sort());
  });
});
