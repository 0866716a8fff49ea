import { describe, expect, it } from "vitest";
import { chargeOf } from "../src/domain/billing/charge-models/index.js";
import {
  floorToMinorUnit,
  isKnownCurrency,
  isWholeMinorUnits,
  minorUnitDigitsOf,
  roundToMinorUnit,
} from "../src/domain/money/currency.js";
import { asMicros } from "../src/domain/money/micros.js";

// Money is integer micro-units (1 unit of any currency = 1,000,000); each line rounds once, half up, to its
// currency's minor unit. Every expected figure is worked out in its comment.
const M = 1_000_000;

describe("minorUnitDigitsOf: the ISO 4217 minor unit, from the currency-codes package", () => {
  it.each([
    ["USD", 2],
    ["EUR", 2],
    ["JPY", 0],
    ["KRW", 0],
    ["KWD", 3],
    ["BHD", 3],
  ])("%s has %i decimals", (code, digits) => {
    expect(minorUnitDigitsOf(code)).toBe(digits);
  });

  it("knows no made-up, lower-case or non-money code (metals, testing, no currency)", () => {
    for (const code of ["ABC", "usd", "US", "USDD", "XAU", "XTS", "XXX"]) expect(isKnownCurrency(code)).toBe(false);
    expect(() => minorUnitDigitsOf("ABC")).toThrow(RangeError);
  });
});

describe("roundToMinorUnit: a rational amount of micro-units to the currency's minor unit, half up", () => {
  it.each([
    ["USD", 5_000n, 1n, 10_000], // 0.005 → 0.01 (half up)
    ["USD", 4_999n, 1n, 0], // 0.004999 → 0.00
    ["USD", 1_000_000n, 8n, 130_000], // 1/8 = 0.125 → 0.13
    ["USD", 2_000_000n, 3n, 670_000], // 2/3 = 0.666… → 0.67
    ["USD", 10n ** 15n, 1n, 1e15], // 1e9 USD stays exact
    ["JPY", 1_500_000n, 1n, 2 * M], // 1.5 → 2 (half up)
    ["JPY", 1_499_999n, 1n, M], // 1.499999 → 1
    ["JPY", 2_000_000n, 3n, M], // 2/3 = 0.666… → 1
    ["KWD", 1_234_500n, 1n, 1_235_000], // 1.2345 → 1.235 (half up, 3 decimals)
    ["KWD", 1_234_499n, 1n, 1_234_000], // 1.234499 → 1.234
    ["KWD", 1_000_000n, 3n, 333_000], // 1/3 = 0.333… → 0.333
    ["EUR", 0n, 7n, 0],
    // A negative amount (a refund line's tax) mirrors the same positive one: half away from zero.
    ["USD", -5_000n, 1n, -10_000], // −0.005 → −0.01
    ["USD", -4_999n, 1n, -0], // −0.004999 → −0.00
    ["JPY", -1_500_000n, 1n, -2 * M], // −1.5 → −2
  ])("%s: %i / %i micro-units → %i", (code, numerator, denominator, expected) => {
    expect(roundToMinorUnit(numerator, denominator, code)).toBe(expected);
  });
});

describe("floorToMinorUnit and isWholeMinorUnits: what credits and payments may move", () => {
  it("keeps the whole minor units a balance can pay", () => {
    expect(floorToMinorUnit(asMicros(12_005_000), "USD")).toBe(12 * M); // 12.005 → 12.00
    expect(floorToMinorUnit(asMicros(9_999), "USD")).toBe(0); // 0.009999 → 0.00
    expect(floorToMinorUnit(asMicros(12_999_999), "JPY")).toBe(12 * M); // 12.999999 → 12
    expect(floorToMinorUnit(asMicros(1_234_999), "KWD")).toBe(1_234_000); // 1.234999 → 1.234
  });

  it("says whether an amount is whole minor units", () => {
    expect(isWholeMinorUnits(1_500_000, "USD")).toBe(true); // 1.50
    expect(isWholeMinorUnits(1_500_000, "JPY")).toBe(false); // 1.5 yen
    expect(isWholeMinorUnits(1_235_000, "KWD")).toBe(true); // 1.235
    expect(isWholeMinorUnits(1_235_000, "USD")).toBe(false); // 1.235 dollars
  });
});

describe("charge models round each line to the contract currency's minor unit", () => {
  const full = { days: 1, periodDays: 1 };
  it("PER_UNIT 0.5 JPY × 3 units = 1.5 JPY → 2 JPY; the same in USD is 1.50", () => {
    const pricing = { type: "PER_UNIT" as const, priceMicros: asMicros(500_000) };
    expect(chargeOf({ pricing, quantityMicros: 3n * BigInt(M), proration: full, currency: "JPY" }).subtotalMicros).toBe(
      2 * M,
    );
    expect(chargeOf({ pricing, quantityMicros: 3n * BigInt(M), proration: full, currency: "USD" }).subtotalMicros).toBe(
      1_500_000,
    );
  });

  it("PER_UNIT 0.0001 USD per call × 12 345 calls = 1.2345 → 1.23 USD; in KWD → 1.235 (half up)", () => {
    const pricing = { type: "PER_UNIT" as const, priceMicros: asMicros(100) };
    const calls = 12_345n * BigInt(M);
    expect(chargeOf({ pricing, quantityMicros: calls, proration: full, currency: "USD" }).subtotalMicros).toBe(
      1_230_000,
    );
    expect(chargeOf({ pricing, quantityMicros: calls, proration: full, currency: "KWD" }).subtotalMicros).toBe(
      1_235_000,
    );
  });

  it("FLAT 100 JPY prorated 10/31 days = 32.258… → 32 JPY", () => {
    const pricing = { type: "FLAT" as const, priceMicros: asMicros(100 * M) };
    expect(
      chargeOf({ pricing, quantityMicros: 0n, proration: { days: 10, periodDays: 31 }, currency: "JPY" }),
    ).toMatchObject({ subtotalMicros: 32 * M });
  });
});
