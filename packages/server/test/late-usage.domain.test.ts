import { describe, expect, it } from "vitest";
import {
  addCharges,
  chargesByProduct,
  lateDifferences,
  lateLineName,
  signedUnits,
  withinWindow,
} from "../src/domain/billing/late-usage.js";

const M = 1_000_000;
const units = (n: number) => BigInt(n) * 1_000_000n;
const usage = (product: string, quantity: number, chargedMicros: number) => ({
  name: product,
  catalogProductId: product,
  kind: "USAGE",
  quantityMicros: units(quantity),
  chargedMicros,
});

describe("late usage, pure (issue 45's figures: GRADUATED 0.01 for the first 1,000 tokens, then 0.005)", () => {
  it("prices the whole cycle again: +500 on 800 is +3.50, not 500 × 0.01", () => {
    const invoiced = chargesByProduct([usage("tokens", 800, 8 * M)]); // 800 × 0.01 = 8.00
    const repriced = chargesByProduct([usage("tokens", 1300, 11.5 * M)]); // 10.00 + 300 × 0.005 = 11.50
    expect(lateDifferences(repriced, invoiced)).toEqual([
      { product: "tokens", name: "tokens", amountMicros: 3.5 * M, quantityMicros: units(500) },
    ]);
  });

  it("counts earlier adjustments: a measurement lowering March 10 by 300 after +3.50 is −1.50", () => {
    const charged = addCharges(
      chargesByProduct([usage("tokens", 800, 8 * M)]),
      chargesByProduct([usage("tokens", 500, 3.5 * M)]),
    );
    const repriced = chargesByProduct([usage("tokens", 1000, 10 * M)]); // 1,000 × 0.01 = 10.00
    expect(lateDifferences(repriced, charged)).toEqual([
      { product: "tokens", name: "tokens", amountMicros: -1.5 * M, quantityMicros: units(-300) },
    ]);
    // Priced again with nothing new: no difference, no line.
    expect(lateDifferences(charged, charged)).toEqual([]);
  });

  it("keeps products apart and counts units of usage lines only", () => {
    const invoiced = chargesByProduct([
      usage("tokens", 800, 8 * M),
      { name: "Platform", kind: "FLAT", quantityMicros: units(1), chargedMicros: 49 * M },
    ]);
    const repriced = chargesByProduct([
      usage("tokens", 800, 8 * M),
      { name: "Platform", kind: "FLAT", quantityMicros: units(1), chargedMicros: 49 * M },
      usage("images", 3, 0.3 * M),
    ]);
    expect(lateDifferences(repriced, invoiced)).toEqual([
      { product: "images", name: "images", amountMicros: 0.3 * M, quantityMicros: units(3) },
    ]);
  });

  it("names the line with the original's number and month; the window counts whole days", () => {
    const original = { number: "INV-000123", id: "x", cycleStart: new Date("2025-03-01T00:00:00Z") };
    expect(lateLineName(original, "tokens", units(1200))).toBe("Late usage, INV-000123 (Mar 2025): +1,200 tokens");
    expect(signedUnits(-300_500_000n)).toBe("−300.5");
    const finalized = new Date("2025-04-01T00:00:00Z");
    expect(withinWindow(finalized, new Date("2025-05-06T00:00:00Z"), 35)).toBe(true);
    expect(withinWindow(finalized, new Date("2025-05-06T00:00:00.001Z"), 35)).toBe(false);
  });
});
