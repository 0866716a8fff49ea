import { describe, expect, it } from "vitest";
import {
  applicableRates,
  lineTaxes,
  mostSpecificCodes,
  NO_TAX,
  ratePpm,
  type TaxRateTerms,
  type TaxTerms,
  taxSummaryOf,
} from "../src/domain/billing/tax.js";
import { asMicros } from "../src/domain/money/micros.js";

// The pure tax rules (docs/decisions.md, "Taxes"); amounts in micro-units, worked out by hand.
const USD = 1_000_000;
const rate = (code: string, percent: number, inclusive = false): TaxRateTerms => ({
  code,
  name: code,
  rate: percent,
  inclusive,
});

describe("line taxes", () => {
  it("reads a percent exactly as parts per million", () => {
    expect([ratePpm(19), ratePpm(19.1234), ratePpm(0.0001), ratePpm(100)]).toEqual([
      190_000n,
      191_234n,
      1n,
      1_000_000n,
    ]);
  });

  it("exclusive: amount × rate, rounded half up to the minor unit", () => {
    // 0.125 × 20 % = 0.025 → 0.03 (half up); 0.12 × 20 % = 0.024 → 0.02.
    expect(lineTaxes(asMicros(125_000), [rate("VAT", 20)], 2)[0]).toMatchObject({
      taxableMicros: 125_000,
      amountMicros: 30_000,
    });
    expect(lineTaxes(asMicros(120_000), [rate("VAT", 20)], 2)[0]?.amountMicros).toBe(20_000);
  });

  it("rounds to the minor unit given: 0 digits (JPY) and 3 (KWD)", () => {
    // 1234 × 10 % = 123.4 → 123; 1235 × 10 % = 123.5 → 124.
    expect(lineTaxes(asMicros(1234 * USD), [rate("JCT", 10)], 0)[0]?.amountMicros).toBe(123 * USD);
    expect(lineTaxes(asMicros(1235 * USD), [rate("JCT", 10)], 0)[0]?.amountMicros).toBe(124 * USD);
    // 1.2345 × 5 % = 0.061725 → 0.062.
    expect(lineTaxes(asMicros(1_234_500), [rate("VAT", 5)], 3)[0]?.amountMicros).toBe(62_000);
  });

  it("inclusive: amount × rate / (100 + rate) split out of the amount", () => {
    // 100.00 × 19 / 119 = 15.966… → 15.97; taxable 100.00 − 15.97 = 84.03.
    expect(lineTaxes(asMicros(100 * USD), [rate("MWST", 19, true)], 2)).toEqual([
      { ...rate("MWST", 19, true), taxableMicros: 84_030_000, amountMicros: 15_970_000 },
    ]);
  });

  it("inclusive and exclusive on one line: the exclusive ones on the amount net of the included tax", () => {
    // Inclusive 10 %: 110.00 × 10 / 110 = 10.00, net 100.00; exclusive 5 % on 100.00 = 5.00.
    expect(lineTaxes(asMicros(110 * USD), [rate("IN", 10, true), rate("EX", 5)], 2)).toEqual([
      { ...rate("IN", 10, true), taxableMicros: 100 * USD, amountMicros: 10 * USD },
      { ...rate("EX", 5), taxableMicros: 100 * USD, amountMicros: 5 * USD },
    ]);
  });

  it("a zero amount or a zero rate taxes nothing", () => {
    expect(lineTaxes(asMicros(0), [rate("VAT", 20)], 2)[0]?.amountMicros).toBe(0);
    expect(lineTaxes(asMicros(100 * USD), [rate("ZERO", 0)], 2)[0]?.amountMicros).toBe(0);
  });
});

describe("which rates apply", () => {
  const terms: TaxTerms = {
    exempt: false,
    fallbackCodes: [["CONTRACT"], undefined, ["ACCOUNT"]],
    liveRates: new Map([rate("PRODUCT", 1), rate("CONTRACT", 2), rate("ACCOUNT", 10)].map((each) => [each.code, each])),
    minorUnitDigits: 2,
  };

  it("the most specific level naming a code; an empty list names none", () => {
    expect(mostSpecificCodes(undefined, [], ["B"], ["C"])).toEqual(["B"]);
    expect(mostSpecificCodes(undefined, [])).toBeUndefined();
    expect(applicableRates(["PRODUCT"], terms).map((each) => each.code)).toEqual(["PRODUCT"]);
    expect(applicableRates([], terms).map((each) => each.code)).toEqual(["CONTRACT"]);
    const noContract = { ...terms, fallbackCodes: [undefined, undefined, ["ACCOUNT"]] };
    expect(applicableRates(undefined, noContract).map((each) => each.code)).toEqual(["ACCOUNT"]);
  });

  it("an archived (not live) rate of the applicable level is dropped, not replaced by a lower level's", () => {
    expect(applicableRates(["ARCHIVED"], terms)).toEqual([]);
    expect(applicableRates(["ARCHIVED", "PRODUCT"], terms).map((each) => each.code)).toEqual(["PRODUCT"]);
  });

  it("a tax-exempt customer: no rate at all", () => {
    expect(applicableRates(["PRODUCT"], { ...terms, exempt: true })).toEqual([]);
    expect(applicableRates(["PRODUCT"], NO_TAX)).toEqual([]);
  });
});

describe("tax summary", () => {
  it("sums the lines' taxes per code, rate and inclusive, in the order first met", () => {
    const vat = { ...rate("VAT", 20), taxableMicros: asMicros(10 * USD), amountMicros: asMicros(2 * USD) };
    const city = { ...rate("CITY", 1), taxableMicros: asMicros(10 * USD), amountMicros: asMicros(100_000) };
    // VAT: 2.00 + 2.00 = 4.00 on 10.00 + 10.00 = 20.00; CITY: 0.10 on 10.00.
    expect(taxSummaryOf([{ taxes: [vat, city] }, { taxes: [vat] }, { taxes: [] }])).toEqual([
      { ...vat, taxableMicros: 20 * USD, amountMicros: 4 * USD },
      city,
    ]);
  });
});
