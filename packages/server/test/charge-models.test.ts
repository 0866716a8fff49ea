import { type Pricing, pricing } from "@billing/shared";
import { describe, expect, it } from "vitest";
import { FULL_PERIOD } from "../src/domain/billing/amounts.js";
import {
  CHARGE_MODELS,
  type ChargeModels,
  type ChargePricing,
  chargeOf,
} from "../src/domain/billing/charge-models/index.js";
import type { PriceTier as ChargeTier } from "../src/domain/billing/charge-models/types.js";
import { asMicros } from "../src/domain/money/micros.js";
import { presentPricing, pricingInMicros } from "../src/presenters/contracts.js";

// Pure models: amounts are micro-units (1 USD = 1,000,000); every expected figure is worked out in the comment.
const M = 1_000_000;
const units = (value: number) => BigInt(Math.round(value * M));
const charge = (pricing: ChargePricing, usage = 0, proration = FULL_PERIOD) =>
  chargeOf({ pricing, quantityMicros: units(usage), proration, currency: "USD" });
const subtotal = (pricing: ChargePricing, usage = 0) => charge(pricing, usage).subtotalMicros / M;

const tiers: ChargeTier[] = [
  { upToMicros: 10 * M, unitPriceMicros: asMicros(1 * M), flatPriceMicros: asMicros(5 * M) },
  { upToMicros: 100 * M, unitPriceMicros: asMicros(500_000), flatPriceMicros: asMicros(2 * M) },
  { upToMicros: null, unitPriceMicros: asMicros(100_000), flatPriceMicros: asMicros(0) },
];

describe("ONE_TIME and FLAT", () => {
  it("ONE_TIME is its price rounded once to cents, half up, never prorated", () => {
    expect(subtotal({ type: "ONE_TIME", priceMicros: asMicros(99_995_000) })).toBe(100); // 99.995 → 100.00
    expect(subtotal({ type: "ONE_TIME", priceMicros: asMicros(99_994_999) })).toBe(99.99);
    expect(
      charge({ type: "ONE_TIME", priceMicros: asMicros(10 * M) }, 0, { days: 1, periodDays: 31 }).subtotalMicros,
    ).toBe(10 * M);
  });

  it("FLAT is its price every cycle, prorated by covered days", () => {
    // Usage plays no part.
    expect(charge({ type: "FLAT", priceMicros: asMicros(100 * M) }, 5).subtotalMicros).toBe(100 * M);
    // 100 × 10 / 31 = 32.2580… → 32.26
    expect(charge({ type: "FLAT", priceMicros: asMicros(100 * M) }, 0, { days: 10, periodDays: 31 })).toEqual({
      subtotalMicros: 32_260_000,
      quantityMicros: 1_000_000n,
      unitPriceMicros: 100 * M,
    });
  });

  it("FLAT charges nothing for a cycle the contract does not cover, and a zero price is zero", () => {
    expect(
      charge({ type: "FLAT", priceMicros: asMicros(100 * M) }, 0, { days: 0, periodDays: 30 }).subtotalMicros,
    ).toBe(0);
    expect(subtotal({ type: "FLAT", priceMicros: asMicros(0) })).toBe(0);
    // 15 of February 2024's 29 days: 29.99 × 15 / 29 = 15.5120… → 15.51
    const fifteenOf29 = { days: 15, periodDays: 29 };
    expect(charge({ type: "FLAT", priceMicros: asMicros(29_990_000) }, 0, fifteenOf29).subtotalMicros).toBe(15_510_000);
  });
});

describe("PER_UNIT", () => {
  it("multiplies exactly and rounds once", () => {
    // 1234.5 × 0.015 = 18.5175
    expect(subtotal({ type: "PER_UNIT", priceMicros: asMicros(15_000) }, 1234.5)).toBe(18.52);
    expect(subtotal({ type: "PER_UNIT", priceMicros: asMicros(5_000) }, 1)).toBe(0.01); // 0.005: half up
    expect(subtotal({ type: "PER_UNIT", priceMicros: asMicros(333_333) }, 2.5)).toBe(0.83); // 0.8333325
    expect(subtotal({ type: "PER_UNIT", priceMicros: asMicros(1 * M) }, 0.000001)).toBe(0); // 0.000001 → 0.00
    expect(subtotal({ type: "PER_UNIT", priceMicros: asMicros(7 * M) }, 0)).toBe(0);
  });

  it("stays exact past 2^53 micro-units of usage × price", () => {
    // 1e9 units × 1,000 USD = 1e12 USD: the product is 1e15 × 1e9 micro-units², far past 2^53.
    expect(charge({ type: "PER_UNIT", priceMicros: asMicros(1000 * M) }, 1e9).subtotalMicros).toBe(1e12 * M);
  });
});

describe("PACKAGE", () => {
  const pack: ChargePricing = { type: "PACKAGE", priceMicros: asMicros(5 * M), packageSizeMicros: 100 * M };
  it("charges ⌈usage / size⌉ packages: none for no usage, one at exactly the size, two just past it", () => {
    expect(charge(pack, 0)).toEqual({
      subtotalMicros: 0,
      quantityMicros: 0n,
      packages: { count: 0n, sizeMicros: 100 * M, priceMicros: 5 * M },
    });
    expect(subtotal(pack, 1)).toBe(5);
    expect(subtotal(pack, 100)).toBe(5);
    expect(subtotal(pack, 100.000001)).toBe(10);
    expect(charge(pack, 250).packages?.count).toBe(3n); // 15 USD
    expect(subtotal(pack, 250)).toBe(15);
  });

  it("takes fractional package sizes: 1.2 / 0.5 → 3 packages × 0.333 = 0.999 → 1.00", () => {
    expect(subtotal({ type: "PACKAGE", priceMicros: asMicros(333_000), packageSizeMicros: 500_000 }, 1.2)).toBe(1);
  });

  it("rounds the line once, half up: ⌈25 / 10⌉ = 3 packages × 0.335 = 1.005 → 1.01", () => {
    const pack: ChargePricing = { type: "PACKAGE", priceMicros: asMicros(335_000), packageSizeMicros: 10 * M };
    expect(charge(pack, 25)).toMatchObject({ subtotalMicros: 1_010_000, packages: { count: 3n } });
    expect(subtotal(pack, 0.000001)).toBe(0.34); // a micro-unit of usage opens a package: 0.335 → 0.34
  });
});

describe("GRADUATED", () => {
  const graduated: ChargePricing = { type: "GRADUATED", tiers };
  it("charges nothing for no usage", () => {
    expect(charge(graduated, 0)).toEqual({ subtotalMicros: 0, quantityMicros: 0n, tiers: [] });
  });

  it("usage exactly at upTo stays in that tier: 10 × 1 + flat 5 = 15", () => {
    expect(charge(graduated, 10)).toEqual({
      subtotalMicros: 15 * M,
      quantityMicros: units(10),
      tiers: [
        {
          upToMicros: 10 * M,
          quantityMicros: units(10),
          unitPriceMicros: M,
          flatPriceMicros: 5 * M,
          amountMicros: 15 * M,
        },
      ],
    });
  });

  it("fractional usage past upTo reaches the next tier and its flat price: 15 + (0.5 × 0.5 + 2) = 17.25", () => {
    const { subtotalMicros, tiers: lines } = charge(graduated, 10.5);
    expect(subtotalMicros).toBe(17_250_000);
    expect(lines?.map((tier) => [tier.quantityMicros, tier.amountMicros])).toEqual([
      [units(10), 15 * M],
      [units(0.5), 2_250_000],
    ]);
  });

  it("fills every tier in order: 15 + (90 × 0.5 + 2) + 50 × 0.1 = 67", () => {
    expect(subtotal(graduated, 150)).toBe(67);
    expect(charge(graduated, 150).tiers?.map((tier) => tier.quantityMicros)).toEqual([units(10), units(90), units(50)]);
  });

  it("rounds the line once: 0.004 + 1.5 × 0.001 = 0.0055 → 0.01 (per tier it would be 0.00 + 0.00)", () => {
    const cheap: ChargePricing = {
      type: "GRADUATED",
      tiers: [
        { upToMicros: M, unitPriceMicros: asMicros(4_000), flatPriceMicros: asMicros(0) },
        { upToMicros: null, unitPriceMicros: asMicros(1_000), flatPriceMicros: asMicros(0) },
      ],
    };
    const { subtotalMicros, tiers: lines } = charge(cheap, 2.5);
    expect(subtotalMicros).toBe(10_000);
    expect(lines?.map((tier) => tier.amountMicros)).toEqual([4_000, 1_500]);
  });

  it("usage inside the first tier: 5 × 1 + flat 5 = 10", () => {
    expect(charge(graduated, 5).tiers).toHaveLength(1);
    expect(subtotal(graduated, 5)).toBe(10);
  });

  it("usage exactly at the second tier's upTo does not reach the third: 15 + (90 × 0.5 + 2) = 62", () => {
    expect(charge(graduated, 100).tiers?.map((tier) => tier.amountMicros)).toEqual([15 * M, 47 * M]);
    expect(subtotal(graduated, 100)).toBe(62);
  });

  it("rounds half up: 15 + (0.01 × 0.5 + 2) = 17.005 → 17.01", () => {
    expect(subtotal(graduated, 10.01)).toBe(17.01);
  });

  it("a single open-ended tier with a flat price only: 20 for any usage, 0 for none", () => {
    const onlyTier = { upToMicros: null, unitPriceMicros: asMicros(0), flatPriceMicros: asMicros(20 * M) };
    const flatOnly: ChargePricing = { type: "GRADUATED", tiers: [onlyTier] };
    expect(subtotal(flatOnly, 0.000001)).toBe(20);
    expect(subtotal(flatOnly, 1e6)).toBe(20);
    expect(subtotal(flatOnly, 0)).toBe(0);
  });
});

describe("VOLUME", () => {
  const volume: ChargePricing = { type: "VOLUME", tiers };
  it("charges nothing for no usage", () => {
    expect(subtotal(volume, 0)).toBe(0);
  });

  it("prices every unit at the tier the total falls in, upTo inclusive, plus that tier's flat price", () => {
    expect(subtotal(volume, 10)).toBe(15); // tier 1: 10 × 1 + 5
    expect(subtotal(volume, 10.5)).toBe(7.25); // tier 2: 10.5 × 0.5 + 2
    expect(subtotal(volume, 100)).toBe(52); // tier 2: 100 × 0.5 + 2
    expect(subtotal(volume, 150)).toBe(15); // tier 3: 150 × 0.1
    expect(charge(volume, 10.5)).toMatchObject({
      unitPriceMicros: 500_000,
      tiers: [
        {
          upToMicros: 100 * M,
          quantityMicros: units(10.5),
          unitPriceMicros: 500_000,
          flatPriceMicros: 2 * M,
          amountMicros: 7_250_000,
        },
      ],
    });
  });

  it("a micro-unit of usage is in the first tier with its flat price: 0.000001 × 1 + 5 = 5.000001 → 5.00", () => {
    expect(subtotal(volume, 0.000001)).toBe(5);
  });

  it("rounds half up: 10.01 × 0.5 + 2 = 7.005 → 7.01", () => {
    expect(subtotal(volume, 10.01)).toBe(7.01);
  });

  it("refuses a hand-built price whose last tier has an upTo, once usage passes it", () => {
    const closed: ChargePricing = {
      type: "VOLUME",
      tiers: [{ upToMicros: 10 * M, unitPriceMicros: asMicros(M), flatPriceMicros: asMicros(0) }],
    };
    expect(subtotal(closed, 10)).toBe(10);
    expect(() => charge(closed, 10.000001)).toThrow();
  });
});

describe("PER_SEAT", () => {
  const perSeat: ChargePricing = { type: "PER_SEAT", priceMicros: asMicros(10 * M) };
  const seats = (spans: { seats: number; days: number }[], periodDays = 30) =>
    chargeOf({
      pricing: perSeat,
      quantityMicros: 0n,
      proration: FULL_PERIOD,
      currency: "USD",
      seats: { spans, periodDays },
    });

  it("bills each seat count for its days, rounded once: 25, 30 and 20 seats, 10 days each of 30", () => {
    // (25 × 10 + 30 × 10 + 20 × 10) seat-days × 10.00 / 30 = 7,500 / 30 = 250.00; average 750 / 30 = 25 seats.
    const billed = seats([
      { seats: 25, days: 10 },
      { seats: 30, days: 10 },
      { seats: 20, days: 10 },
    ]);
    expect(billed).toEqual({ subtotalMicros: 250 * M, quantityMicros: 25n * BigInt(M), unitPriceMicros: 10 * M });
    // 7 seats for 10 of 31 days: 7 × 10 × 10.00 / 31 = 22.580… → 22.58; average 70 / 31 = 2.258065 seats.
    expect(seats([{ seats: 7, days: 10 }], 31)).toMatchObject({
      subtotalMicros: 22_580_000,
      quantityMicros: 2_258_065n,
    });
    // No seats given: nothing billed.
    expect(
      chargeOf({ pricing: perSeat, quantityMicros: 0n, proration: FULL_PERIOD, currency: "USD" }).subtotalMicros,
    ).toBe(0);
  });
});

describe("pricingInMicros: a price as the API states it, in micro-units", () => {
  it("converts every price type, tiers' flat prices only when given", () => {
    expect(pricingInMicros({ type: "PER_UNIT", price: 0.015 })).toEqual({ type: "PER_UNIT", priceMicros: 15_000 });
    expect(pricingInMicros({ type: "PACKAGE", price: 5, packageSize: 0.5 })).toEqual({
      type: "PACKAGE",
      priceMicros: 5 * M,
      packageSizeMicros: 500_000,
    });
    expect(
      pricingInMicros({
        type: "GRADUATED",
        tiers: [
          { upTo: 10, unitPrice: 1.5 },
          { upTo: null, unitPrice: 0.000001, flatPrice: 2 },
        ],
      }),
    ).toEqual({
      type: "GRADUATED",
      tiers: [
        { upToMicros: 10 * M, unitPriceMicros: 1_500_000 },
        { upToMicros: null, unitPriceMicros: 1, flatPriceMicros: 2 * M },
      ],
    });
  });

  it("presentPricing gives back the price as it was stated", () => {
    const stated: Pricing[] = [
      { type: "ONE_TIME", price: 12.5 },
      { type: "PACKAGE", price: 5, packageSize: 0.5 },
      {
        type: "VOLUME",
        tiers: [
          { upTo: 3, unitPrice: 0.25, flatPrice: 1 },
          { upTo: null, unitPrice: 0.000001 },
        ],
      },
    ];
    for (const pricing of stated) expect(presentPricing(pricingInMicros(structuredClone(pricing)))).toEqual(pricing);
  });
});

describe("the registry of charge models", () => {
  it("has one model for each price type of the API", () => {
    const apiTypes = pricing.options.map((option) => option.shape.type.value);
    expect(Object.keys(CHARGE_MODELS).sort()).toEqual([...apiTypes].sort());
  });

  it("does not compile without a model for every price type (typecheck runs this file)", () => {
    const { VOLUME, ...allButVolume } = CHARGE_MODELS;
    // @ts-expect-error VOLUME has no entry: a price type without a model is a compile error, not a default case.
    const incomplete: ChargeModels = allButVolume;
    expect(Object.keys(incomplete)).not.toContain("VOLUME");
    expect(VOLUME.lineKind).toBe("USAGE");
  });

  it("reads each price in micro-units under the API's field names (ChargePricing is derived from Pricing)", () => {
    const packagePrice: ChargePricing = { type: "PACKAGE", priceMicros: asMicros(5 * M), packageSizeMicros: 500_000 };
    // @ts-expect-error a PACKAGE price without its size is no ChargePricing.
    const withoutSize: ChargePricing = { type: "PACKAGE", priceMicros: asMicros(5 * M) };
    expect(presentPricing(packagePrice)).toEqual({ type: "PACKAGE", price: 5, packageSize: 0.5 });
    expect(withoutSize).not.toHaveProperty("packageSizeMicros");
  });
});
