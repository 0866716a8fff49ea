import { fromMicros, toMicros, unitsOfMicros } from "@billing/shared";
import { describe, expect, it } from "vitest";
import {
  FULL_PERIOD,
  fixedChargeMicros,
  groupChargeMicros,
  lineChargeMicros,
  roundToMicros,
} from "../src/domain/billing/amounts.js";
import { asMicros } from "../src/domain/money/micros.js";

// Money is integer micro-units (1 USD = 1,000,000); a line is computed exactly and rounded once, to the currency's
// minor unit, half up (docs/decisions.md, "Currencies"). Every expected figure is worked out in its comment; these
// are USD (cents). Other currencies: currency.domain.test.ts.
const M = 1_000_000;
const days = (covered: number, of: number) => ({ days: covered, periodDays: of });

describe("micro-units", () => {
  it("holds every amount of at most 6 decimals exactly: 0.1 + 0.2 is 0.3", () => {
    expect(toMicros(0.1) + toMicros(0.2)).toBe(toMicros(0.3)); // 100,000 + 200,000 = 300,000
    expect(toMicros(123456.789999)).toBe(123_456_789_999);
    expect(toMicros(999999999.999999)).toBe(999_999_999_999_999);
    expect(toMicros(1e-6)).toBe(1);
    expect(fromMicros(300_000)).toBe(0.3);
  });

  it("shows bigint micro-units as the double nearest their decimal, rounded once", () => {
    // The nearest double to a decimal text is what the JSON parser of any client reads from it.
    const nearest = (decimal: string) => Number(decimal);
    expect(unitsOfMicros(1_234_567n)).toBe(1.234567);
    expect(unitsOfMicros(-5n)).toBe(-0.000005);
    // Below 2^53 micro-units it is what fromMicros gives.
    expect(unitsOfMicros(2n ** 53n - 1n)).toBe(fromMicros(2 ** 53 - 1));
    // 1,152,921,504,606,886,571 micro-units = 1,152,921,504,606.886571, whose nearest double prints …606.8865;
    // through Number(bigint) first (…886,528 micro-units) and then / 1e6 it would print …606.8867.
    expect(unitsOfMicros(1_152_921_504_606_886_571n)).toBe(nearest("1152921504606.886571"));
    expect(Number(1_152_921_504_606_886_571n) / 1e6).not.toBe(nearest("1152921504606.886571"));
  });

  it("refuses a 7th decimal rather than rounding it away", () => {
    expect(() => toMicros(1.0000001)).toThrow();
    expect(() => toMicros(Number.NaN)).toThrow();
  });
});

describe("lineChargeMicros: quantity × unit price × proration, rounded once", () => {
  it("charges units × price: 10 × 99.99 = 999.90", () => {
    expect(lineChargeMicros(10 * M, asMicros(99_990_000), FULL_PERIOD, "USD")).toBe(999_900_000);
  });

  it("rounds the line, not each unit: 3 × 0.004 = 0.012 → 0.01 (0.00 per unit would make 0.00)", () => {
    expect(lineChargeMicros(3 * M, asMicros(4_000), FULL_PERIOD, "USD")).toBe(10_000);
  });

  it("rounds half up: 3 × 0.005 = 0.015 → 0.02; 2.5 × 0.333333 = 0.8333325 → 0.83", () => {
    expect(lineChargeMicros(3 * M, asMicros(5_000), FULL_PERIOD, "USD")).toBe(20_000);
    expect(lineChargeMicros(2_500_000, asMicros(333_333), FULL_PERIOD, "USD")).toBe(830_000);
  });

  it("prorates before rounding: 999.90 × 17/31 = 548.3322… → 548.33; 100 × 10/31 = 32.2580… → 32.26", () => {
    expect(lineChargeMicros(10 * M, asMicros(99_990_000), days(17, 31), "USD")).toBe(548_330_000);
    expect(lineChargeMicros(M, asMicros(100 * M), days(10, 31), "USD")).toBe(32_260_000);
  });

  it("charges a whole cycle in full and an uncovered one nothing", () => {
    expect(lineChargeMicros(M, asMicros(100 * M), days(29, 29), "USD")).toBe(100 * M);
    expect(lineChargeMicros(M, asMicros(100 * M), FULL_PERIOD, "USD")).toBe(100 * M);
    expect(lineChargeMicros(M, asMicros(100 * M), days(0, 30), "USD")).toBe(0);
  });
});

describe("fixed and group charges", () => {
  /** A commitment of 10 units at 2.50: 25 per cycle. */
  const TEN_AT_2_50 = { unitsMicros: 10 * M, priceMicros: asMicros(2_500_000) };

  it("rounds a fixed amount once: 99.995 → 100.00, 99.994999 → 99.99", () => {
    expect(fixedChargeMicros(asMicros(99_995_000), "USD")).toBe(100 * M);
    expect(fixedChargeMicros(asMicros(99_994_999), "USD")).toBe(99_990_000);
  });

  it("charges a group's base amount, commitment and one-time prices as one line", () => {
    // 100 + 10 × 2.5 + 7.5 = 132.50
    expect(groupChargeMicros(asMicros(100 * M), TEN_AT_2_50, asMicros(7_500_000), FULL_PERIOD, "USD")).toBe(
      132_500_000,
    );
    // Rounded once: 0.005 + 0.005 = 0.01 (each rounded first would make 0.02).
    expect(groupChargeMicros(asMicros(5_000), undefined, asMicros(5_000), FULL_PERIOD, "USD")).toBe(10_000);
  });

  it("prorates base and commitment, not one-time prices: (100 + 25) × 10/31 + 7.5 = 47.8225… → 47.82", () => {
    expect(groupChargeMicros(asMicros(100 * M), TEN_AT_2_50, asMicros(7_500_000), days(10, 31), "USD")).toBe(
      47_820_000,
    );
  });
});

describe("display amounts", () => {
  it("roundToMicros rounds a rational amount to a whole micro-unit, half up", () => {
    expect(roundToMicros(1n, 3n)).toBe(0); // 0.333…
    expect(roundToMicros(2n, 3n)).toBe(1); // 0.666…
    expect(roundToMicros(1n, 2n)).toBe(1); // 0.5: half up
    expect(roundToMicros(5n, 2n)).toBe(3); // 2.5: half up
  });
});
