import { describe, expect, it } from "vitest";
import {
  billedMicros,
  crossesNewThreshold,
  thresholdBilledLines,
  thresholdKey,
  thresholdsReached,
} from "../src/domain/billing/thresholds.js";
import { asMicros } from "../src/domain/money/micros.js";

/** Threshold billing's pure rules (docs/decisions.md, "Threshold billing"), amounts in micro-units. */
const THRESHOLDS = [asMicros(100_000_000), asMicros(250_000_000)];
const usd = (amount: number) => asMicros(Math.round(amount * 1_000_000));

describe("crossesNewThreshold", () => {
  it("bills when accrued reaches a threshold the billed total had not", () => {
    // 120.00 reaches 100.00 (1), nothing billed (0): yes.
    expect(crossesNewThreshold(THRESHOLDS, usd(120), 0)).toBe(true);
    // 270.00 reaches 2, 120.00 billed reaches 1: yes. 300.00 reaches 2, 270.00 billed reaches 2: no.
    expect(crossesNewThreshold(THRESHOLDS, usd(270), usd(120))).toBe(true);
    expect(crossesNewThreshold(THRESHOLDS, usd(300), usd(270))).toBe(false);
    // A threshold is reached at its amount: 100.00 exactly counts, 99.99 does not.
    expect(thresholdsReached(THRESHOLDS, usd(100))).toBe(1);
    expect(crossesNewThreshold(THRESHOLDS, usd(99.99), 0)).toBe(false);
    // Straight from 0 to 270.00: one invoice (the next look finds 270.00 billed: 2 = 2).
    expect(crossesNewThreshold(THRESHOLDS, usd(270), 0)).toBe(true);
    expect(crossesNewThreshold(THRESHOLDS, usd(270), usd(270))).toBe(false);
  });
});

describe("thresholdBilledLines", () => {
  it("takes off each earlier threshold invoice's net charge per product, with the product's tax rates", () => {
    const first = {
      invoiceId: "i1",
      number: "INV-000001",
      lines: [{ product: "tokens", catalogProductId: "tokens", chargedMicros: usd(120), taxRateCodes: ["VAT"] }],
    };
    // The second billed 270.00 of tokens less the first's 120.00: net 150.00.
    const second = {
      invoiceId: "i2",
      number: "INV-000002",
      lines: [
        { product: "tokens", catalogProductId: "tokens", chargedMicros: usd(270), taxRateCodes: ["VAT"] },
        { product: "tokens", catalogProductId: "tokens", chargedMicros: usd(-120), taxRateCodes: ["VAT"] },
      ],
    };
    expect(billedMicros([first, second])).toBe(usd(270));
    const lines = thresholdBilledLines([first, second]);
    expect(lines.map((line) => [line.name, line.kind, line.subtotalMicros, line.taxRateCodes])).toEqual([
      ["Billed on INV-000001 (threshold)", "THRESHOLD_BILLED", usd(-120), ["VAT"]],
      ["Billed on INV-000002 (threshold)", "THRESHOLD_BILLED", usd(-150), ["VAT"]],
    ]);
    expect(lines[1]?.adjusts).toEqual({ invoiceId: "i2", number: "INV-000002", product: "tokens", quantityMicros: 0n });
  });

  it("names the product when an invoice billed several, and makes no line of a product netting 0", () => {
    const lines = thresholdBilledLines([
      {
        invoiceId: "i1",
        number: "INV-000007",
        lines: [
          { product: "tokens", chargedMicros: usd(80) },
          { product: "Platform", chargedMicros: usd(49.99) },
          { product: "images", chargedMicros: usd(0) },
        ],
      },
    ]);
    expect(lines.map((line) => [line.name, line.subtotalMicros])).toEqual([
      ["Billed on INV-000007 (threshold): tokens", usd(-80)],
      ["Billed on INV-000007 (threshold): Platform", usd(-49.99)],
    ]);
  });

  it("keys the n-th threshold invoice of a cycle apart from the cycle's own invoice", () => {
    expect(thresholdKey("2026-01-01", 2)).toBe("2026-01-01#threshold-2");
  });
});
