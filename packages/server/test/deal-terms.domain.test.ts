import { describe, expect, it } from "vitest";
import { type AppliedDiscount, appliesTo, discountMicros } from "../src/domain/billing/discounts.js";
import type { InvoiceBasis } from "../src/domain/billing/invoice.js";
import type { CycleCharge } from "../src/domain/billing/items.js";
import { seatAdjustments, seatDays, seatsOn } from "../src/domain/contracts/seats.js";
import { asMicros } from "../src/domain/money/micros.js";

// The deal terms' pure rules (docs/decisions.md, "Deal terms"), figures worked out by hand.

const USD = 1_000_000;
const day = (date: string) => new Date(`${date}T00:00:00.000Z`);
const april = { start: day("2024-04-01"), end: day("2024-05-01") };
const change = (quantity: number, effectiveFrom: string, late = false) => ({
  product: "Seats",
  quantity,
  effectiveFrom: `${effectiveFrom}T00:00:00.000Z`,
  enteredAt: "2024-04-01T00:00:00.000Z",
  ...(late && { late }),
});

describe("seats", () => {
  const contract = {
    startDate: "2024-04-01T00:00:00.000Z",
    seatChanges: [change(30, "2024-04-11"), change(20, "2024-04-21")],
  };

  it("each count for its days: 25 × 10, 30 × 10, 20 × 10 of 30 days", () => {
    expect(seatDays(contract, "Seats", 25, april)).toEqual({
      spans: [
        { seats: 25, days: 10 },
        { seats: 30, days: 10 },
        { seats: 20, days: 10 },
      ],
      periodDays: 30,
    });
    expect(seatsOn(contract, "Seats", 25, day("2024-04-15"))).toBe(30);
    // Another product's changes are not this one's.
    expect(seatDays(contract, "Other", 4, april).spans).toEqual([{ seats: 4, days: 30 }]);
  });

  it("a late change is left out of its own cycle and adjusts the next: +3 × 10.00 × 20/30 = 20.00, or refunds", () => {
    const late = { startDate: "2024-04-01T00:00:00.000Z", seatChanges: [change(28, "2024-04-11", true)] };
    expect(seatDays(late, "Seats", 25, april).spans).toEqual([{ seats: 25, days: 30 }]);
    const may = { start: day("2024-05-01"), end: day("2024-06-01") };
    expect(seatDays(late, "Seats", 25, may).spans).toEqual([{ seats: 28, days: 31 }]);
    expect(seatAdjustments(late, "Seats", 25, april, asMicros(10 * USD), "USD")).toEqual([
      { name: "+3 seats from Apr 11", seats: 3, amountMicros: 20 * USD },
    ]);
    // Seats removed late are refunded for their days: −5 × 10.00 × 20/30 = −33.333… → −33.33.
    const fewer = { startDate: "2024-04-01T00:00:00.000Z", seatChanges: [change(20, "2024-04-11", true)] };
    expect(seatAdjustments(fewer, "Seats", 25, april, asMicros(10 * USD), "USD")).toEqual([
      { name: "\u22125 seats from Apr 11", seats: -5, amountMicros: -33_330_000 },
    ]);
  });
});

describe("discount amounts", () => {
  it("PERCENT rounds once, half up, to the minor unit; AMOUNT takes whole minor units, at most the base", () => {
    // 33.33 × 12.5 % = 4.16625 → 4.17.
    expect(discountMicros({ type: "PERCENT", valueMicros: 12.5 * USD }, asMicros(33_330_000), "USD")).toBe(4_170_000);
    // 5.005 off → 5.00 (whole cents); 3.00 of charges → 3.00 off at most.
    expect(discountMicros({ type: "AMOUNT", valueMicros: 5_005_000 }, asMicros(100 * USD), "USD")).toBe(5 * USD);
    expect(discountMicros({ type: "AMOUNT", valueMicros: 5 * USD }, asMicros(3 * USD), "USD")).toBe(3 * USD);
    // JPY has no minor unit: 10 % of 1,005 = 100.5 → 101.
    expect(discountMicros({ type: "PERCENT", valueMicros: 10 * USD }, asMicros(1005 * USD), "JPY")).toBe(101 * USD);
    expect(discountMicros({ type: "PERCENT", valueMicros: 10 * USD }, asMicros(-30 * USD), "USD")).toBe(0);
  });
});

describe("which cycles a discount applies to", () => {
  const monthly = { duration: { unit: "MONTH" as const, value: 1 }, billingDay: 1 };
  const basis = { contract: { startDate: "2024-01-01T00:00:00.000Z" } } as InvoiceBasis;
  const chargeOf = (number: number, start: string, end: string) =>
    ({ item: { scheduling: monthly }, cycle: { start: day(start), end: day(end) }, number }) as unknown as CycleCharge;
  const march = chargeOf(2, "2024-03-01", "2024-04-01");
  const percent = (fields: Partial<AppliedDiscount>): AppliedDiscount => ({
    type: "PERCENT",
    valueMicros: USD,
    ...fields,
  });

  it("the first N cycles, and cycles starting in [from, until)", () => {
    expect(appliesTo(percent({ cycles: 3 }), march, basis)).toBe(true);
    expect(appliesTo(percent({ cycles: 2 }), march, basis)).toBe(false);
    expect(appliesTo(percent({ from: "2024-03-01T00:00:00Z" }), march, basis)).toBe(true);
    expect(appliesTo(percent({ until: "2024-03-01T00:00:00Z" }), march, basis)).toBe(false);
  });

  it("a coupon counts its cycles from the first one not ended when redeemed", () => {
    // Redeemed Feb 10: February (cycle 1) is its first; for 2 cycles, February and March.
    const coupon = percent({ cycles: 2, redeemedAt: "2024-02-10T00:00:00.000Z" });
    expect(appliesTo(coupon, chargeOf(0, "2024-01-01", "2024-02-01"), basis)).toBe(false);
    expect(appliesTo(coupon, march, basis)).toBe(true);
    expect(appliesTo(coupon, chargeOf(3, "2024-04-01", "2024-05-01"), basis)).toBe(false);
  });
});
