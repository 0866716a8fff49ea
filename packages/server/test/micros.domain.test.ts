import { fromMicros } from "@billing/shared";
import { describe, expect, it } from "vitest";
import { addMicros, asMicros, microsOfBigint, subMicros, sumMicros } from "../src/domain/money/micros.js";
import { amountOf, microsOf, sumAmounts, unitsOf } from "../src/presenters/money.js";

/** The Micros brand (src/domain/money/micros.ts) and the one door to the API's decimals (src/presenters/money.ts). */
describe("micro-units as a number, checked", () => {
  it("takes a bigint that is a safe integer exactly: 2^53 − 1 and its negative", () => {
    expect(microsOfBigint(9_007_199_254_740_991n)).toBe(Number.MAX_SAFE_INTEGER);
    expect(microsOfBigint(-9_007_199_254_740_991n)).toBe(Number.MIN_SAFE_INTEGER);
    expect(microsOfBigint(2_750_000n)).toBe(2_750_000);
  });

  it("refuses 2^53 + 1 (Number() would give 2^53: one micro-unit lost) and a rollup of 1e21", () => {
    expect(Number(9_007_199_254_740_993n)).toBe(9_007_199_254_740_992);
    expect(() => microsOfBigint(9_007_199_254_740_993n)).toThrow(RangeError);
    expect(() => microsOfBigint(2n ** 53n)).toThrow(RangeError);
    expect(() => microsOfBigint(10n ** 21n)).toThrow("do not fit exactly in a number");
    expect(() => microsOfBigint(-(2n ** 53n) - 1n)).toThrow(RangeError);
  });

  it("adds, subtracts and sums in micro-units: 0.1 + 0.2 = 0.3 exactly, 100 − 30 − 20 = 50", () => {
    const [a, b] = [microsOf(0.1), microsOf(0.2)];
    expect(addMicros(a, b)).toBe(300_000);
    expect(amountOf(addMicros(a, b))).toBe(0.3);
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(sumAmounts([0.1, 0.2])).toBe(0.3);
    expect(sumAmounts([0.3, -0.1])).toBe(0.2);
    expect(0.3 - 0.1).not.toBe(0.2);
    expect(subMicros(asMicros(100_000_000), sumMicros([asMicros(30_000_000), asMicros(20_000_000)]))).toBe(50_000_000);
    expect(sumMicros([])).toBe(0);
  });
});

describe("a bigint of micro-units as the API's decimal", () => {
  it("rounds once above 2^53: 2^53 + 1 micro-units = 9007199254.740993, not fromMicros(Number(…))", () => {
    const micros = 9_007_199_254_740_993n;
    // The nearest double to 9007199254.740993 is 9007199254.740993 (doubles there are 2^-19 ≈ 1.9e-6 apart);
    // Number(micros) is 2^53 first, and 2^53 / 1e6 = 9007199254.740992.
    expect(unitsOf(micros)).toBe(9_007_199_254.740993);
    expect(fromMicros(Number(micros))).toBe(9_007_199_254.740992);
    expect(unitsOf(1_500_000n)).toBe(fromMicros(1_500_000));
    expect(unitsOf(-2_750_000n)).toBe(-2.75);
  });
});
