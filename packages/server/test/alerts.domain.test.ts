import { describe, expect, it } from "vitest";
import { crossedThresholds, crossingKey } from "../src/domain/alerts/crossings.js";
import { meterTermsAt, utcDayOf, utcMonthOf } from "../src/domain/alerts/periods.js";
import type { ContractInMicros } from "../src/domain/billing/contract.js";
import { entitlementOf } from "../src/domain/entitlements.js";
import { asMicros } from "../src/domain/money/micros.js";

const M = 1_000_000;

describe("crossedThresholds", () => {
  it("crosses every threshold at or below the usage", () => {
    // thresholds 2, 5, 7 units; usage 5 units: 2 and 5 (at or above), not 7
    expect(crossedThresholds([2 * M, 5 * M, 7 * M], 5_000_000n)).toEqual([2 * M, 5 * M]);
    expect(crossedThresholds([2 * M], 1_999_999n)).toEqual([]);
  });

  it("keys a crossing by alert, customer, threshold and period", () => {
    const start = new Date("2026-03-01T00:00:00Z");
    expect(crossingKey("a", "c", 2 * M, start)).toBe("a/c/2000000/2026-03-01T00:00:00.000Z");
    expect(crossingKey("a", "c", 2 * M, new Date("2026-03-02T00:00:00Z"))).not.toBe(
      crossingKey("a", "c", 2 * M, start),
    );
  });
});

describe("periods", () => {
  const at = new Date("2026-03-20T13:00:00Z");

  it("DAY is the UTC day; the fallback CYCLE is the UTC month", () => {
    expect(utcDayOf(at)).toEqual({ start: new Date("2026-03-20T00:00:00Z"), end: new Date("2026-03-21T00:00:00Z") });
    expect(utcMonthOf(at)).toEqual({ start: new Date("2026-03-01T00:00:00Z"), end: new Date("2026-04-01T00:00:00Z") });
  });

  const contract = (fields: Partial<ContractInMicros>): ContractInMicros =>
    ({
      id: "c1",
      customerId: "cu",
      name: "Plan",
      status: "Active",
      startDate: "2026-01-10T00:00:00Z",
      products: [
        {
          displayName: "API",
          catalogProductId: "calls",
          scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 15 },
          commitment: { unitsMicros: 5 * M, priceMicros: asMicros(M), limitStrategy: "BLOCK" },
        },
      ],
      ...fields,
    }) as ContractInMicros;

  it("CYCLE is the cycle of the item naming the meter, with its commitment", () => {
    // monthly on the 15th: March 20 falls in March 15 – April 15
    expect(meterTermsAt([contract({})], "calls", at)).toEqual({
      contractId: "c1",
      cycle: { start: new Date("2026-03-15T00:00:00Z"), end: new Date("2026-04-15T00:00:00Z") },
      meters: ["calls"],
      commitment: { unitsMicros: 5 * M, priceMicros: M, limitStrategy: "BLOCK" },
    });
  });

  it("ignores contracts not in force, not covering the instant, or not naming the meter", () => {
    expect(meterTermsAt([contract({ status: "InReview" })], "calls", at)).toBeUndefined();
    expect(meterTermsAt([contract({ endDate: "2026-03-01T00:00:00Z" })], "calls", at)).toBeUndefined();
    expect(meterTermsAt([contract({})], "storage", at)).toBeUndefined();
  });

  it("cuts the cycle to the days the contract covers", () => {
    // ends March 31: the March 15 – April 15 cycle is cut to March 15 – March 31
    const ending = contract({ endDate: "2026-03-31T00:00:00Z" });
    expect(meterTermsAt([ending], "calls", at)?.cycle).toEqual({
      start: new Date("2026-03-15T00:00:00Z"),
      end: new Date("2026-03-31T00:00:00Z"),
    });
  });
});

describe("entitlementOf", () => {
  const commitment = (limitStrategy?: "NONE" | "BLOCK") => ({
    unitsMicros: 5 * M,
    priceMicros: asMicros(M),
    limitStrategy,
  });

  it("BLOCK refuses access once usage reaches the units; NONE never does", () => {
    // units 5, usage 4: remaining 5 − 4 = 1
    expect(entitlementOf(commitment("BLOCK"), 4_000_000n)).toEqual({
      hasAccess: true,
      usageMicros: 4_000_000n,
      limitMicros: 5_000_000n,
      remainingMicros: 1_000_000n,
    });
    expect(entitlementOf(commitment("BLOCK"), 5_000_000n)).toMatchObject({ hasAccess: false, remainingMicros: 0n });
    // usage 6 > 5: remaining max(5 − 6, 0) = 0, access under NONE and by default
    expect(entitlementOf(commitment("NONE"), 6_000_000n)).toMatchObject({ hasAccess: true, remainingMicros: 0n });
    expect(entitlementOf(commitment(), 6_000_000n)).toMatchObject({ hasAccess: true, remainingMicros: 0n });
  });

  it("is unlimited without a commitment", () => {
    expect(entitlementOf(undefined, 9n)).toEqual({
      hasAccess: true,
      usageMicros: 9n,
      limitMicros: null,
      remainingMicros: null,
    });
  });
});
