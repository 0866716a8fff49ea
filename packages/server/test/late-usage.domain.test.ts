import type { Contract } from "@billing/shared";
import { describe, expect, it } from "vitest";
import { cycleLookup, plannedInvoiceByKey, plannedInvoices } from "../src/domain/billing/items.js";
import {
  addCharges,
  chargesByProduct,
  correctionTaxMicros,
  lateDifferences,
  lateLineName,
  lateSince,
  lateUsageWindows,
  pricesUsage,
  READ_BEFORE_FINAL_MS,
  signedUnits,
  storedSince,
  withinWindow,
} from "../src/domain/billing/late-usage.js";
import { asMicros } from "../src/domain/money/micros.js";
import { contractInMicros } from "../src/presenters/contracts.js";

const M = 1_000_000;
const units = (n: number) => BigInt(n) * 1_000_000n;
const usage = (product: string, quantity: number, chargedMicros: number) => ({
  name: product,
  catalogProductId: product,
  kind: "USAGE",
  quantityMicros: units(quantity),
  chargedMicros: asMicros(chargedMicros),
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
      { name: "Platform", kind: "FLAT", quantityMicros: units(1), chargedMicros: asMicros(49 * M) },
    ]);
    const repriced = chargesByProduct([
      usage("tokens", 800, 8 * M),
      { name: "Platform", kind: "FLAT", quantityMicros: units(1), chargedMicros: asMicros(49 * M) },
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

const contractOf = (products: unknown[]) =>
  contractInMicros({
    id: "0123456789abcdef01234567",
    customerId: "89abcdef0123456789abcdef",
    name: "Late",
    currency: "USD",
    startDate: "2025-03-01T00:00:00.000Z",
    autoRenewContract: true,
    status: "Active",
    createdAt: "2025-03-01T00:00:00.000Z",
    updatedAt: "2025-03-01T00:00:00.000Z",
    products,
  } as Contract);

describe("late usage, what is looked at (pure)", () => {
  const flat = { displayName: "Platform", catalogProductId: "platform", pricing: { type: "FLAT", price: 100 } };
  const tokens = { displayName: "Tokens", catalogProductId: "tokens", pricing: { type: "PER_UNIT", price: 0.01 } };

  it("a contract that prices no usage has none late; a FLAT product's meter is not a window", () => {
    expect(pricesUsage(contractOf([flat]))).toBe(false);
    const both = contractOf([flat, tokens]);
    expect(pricesUsage(both)).toBe(true);
    const [march] = plannedInvoices(both, new Date("2025-03-15T00:00:00Z"));
    if (!march) throw new Error("the contract has a March invoice");
    expect(lateUsageWindows(both, march)).toEqual([
      { meter: "tokens", fromDay: "2025-03-01", toDayExclusive: "2025-04-01" },
    ]);
  });

  it("a cycle is priced again only for usage of its days stored since (or at an unknown time)", () => {
    const windows = [{ meter: "tokens", fromDay: "2025-03-01", toDayExclusive: "2025-04-01" }];
    // March's lines final Apr 1 00:05: usage stored from 23:55 on Mar 31 may be missing from it (10 minutes).
    const since = new Date(Date.parse("2025-04-01T00:05:00Z") - READ_BEFORE_FINAL_MS);
    const at = (iso: string) => new Date(iso);
    expect(storedSince(windows, [{ day: "2025-03-20", storedAt: at("2025-03-31T23:00:00Z") }], since)).toBe(false);
    expect(storedSince(windows, [{ day: "2025-03-20", storedAt: at("2025-04-03T09:00:00Z") }], since)).toBe(true);
    expect(storedSince(windows, [{ day: "2025-03-31", storedAt: at("2025-03-31T23:56:00Z") }], since)).toBe(true);
    // April's day stored late is not March's; a rollup written before storedAt was recorded is unknown: late.
    expect(storedSince(windows, [{ day: "2025-04-01", storedAt: at("2025-04-03T09:00:00Z") }], since)).toBe(false);
    expect(storedSince(windows, [{ day: "2025-03-20" }], since)).toBe(true);
  });
});

describe("late usage, a correction's tax", () => {
  it("gives back the share of tax the original added: 1.50 of 10.00 with 2.00 VAT → 0.30", () => {
    expect(
      correctionTaxMicros(
        asMicros(1.5 * M),
        { chargedMicros: asMicros(10 * M), addedTaxMicros: asMicros(2 * M) },
        "USD",
      ),
    ).toBe(0.3 * M);
    // 1.00 of 3.00 with 0.25 added: 0.0833… → 0.08 (half up to the cent); JPY 100 of 300 with 25 → 8.33… → 8.
    expect(
      correctionTaxMicros(
        asMicros(1 * M),
        { chargedMicros: asMicros(3 * M), addedTaxMicros: asMicros(0.25 * M) },
        "USD",
      ),
    ).toBe(0.08 * M);
    expect(
      correctionTaxMicros(
        asMicros(100 * M),
        { chargedMicros: asMicros(300 * M), addedTaxMicros: asMicros(25 * M) },
        "JPY",
      ),
    ).toBe(8 * M);
    // No tax added (none, or inclusive rates only): the credit is the difference alone.
    expect(
      correctionTaxMicros(asMicros(1.5 * M), { chargedMicros: asMicros(10 * M), addedTaxMicros: asMicros(0) }, "USD"),
    ).toBe(0);
  });
});

describe("lateSince: since when usage is late for an original", () => {
  const at = (iso: string) => new Date(iso);
  const march = { id: "march", finalAt: at("2025-04-01T00:00:00Z"), createdAt: at("2025-04-01T00:00:00Z"), lines: [] };
  const carrier = (id: string, iso: string, adjusts: string) => ({
    id,
    finalAt: at(iso),
    createdAt: at(iso),
    lines: [{ kind: "LATE_USAGE", adjusts: { invoiceId: adjusts } }],
  });
  const tenMinutesBefore = (iso: string) => new Date(at(iso).getTime() - READ_BEFORE_FINAL_MS);

  it("is its own finalization without an adjustment, the last adjustment's after one", () => {
    expect(lateSince(march, [])).toEqual(tenMinutesBefore("2025-04-01T00:00:00Z"));
    const april = carrier("april", "2025-05-01T00:00:00Z", "march");
    const adjustment = carrier("adj", "2025-06-01T00:00:00Z", "march");
    expect(lateSince(march, [april])).toEqual(tenMinutesBefore("2025-05-01T00:00:00Z"));
    expect(lateSince(march, [april, adjustment])).toEqual(tenMinutesBefore("2025-06-01T00:00:00Z"));
    // An invoice adjusting another original, or a draft's earlier creation, moves nothing later than it was kept.
    expect(lateSince(march, [carrier("other", "2025-06-01T00:00:00Z", "february")])).toEqual(
      tenMinutesBefore("2025-04-01T00:00:00Z"),
    );
    const draftFirst = { ...april, createdAt: at("2025-04-20T00:00:00Z") };
    expect(lateSince(march, [draftFirst])).toEqual(tenMinutesBefore("2025-04-20T00:00:00Z"));
  });
});

describe("a contract's cycles planned once per run (cycleLookup)", () => {
  it("answers as plannedInvoiceByKey for every cycle: a monthly usage price, a quarterly fee on the 15th", () => {
    const tokens = { displayName: "Tokens", catalogProductId: "tokens", pricing: { type: "PER_UNIT", price: 0.01 } };
    const quarterly = {
      displayName: "Support",
      catalogProductId: "support",
      pricing: { type: "FLAT", price: 30 },
      scheduling: { duration: { unit: "MONTH", value: 3 }, billingDay: 15 },
    };
    const contract = contractOf([tokens, quarterly]);
    const upTo = new Date("2027-01-01T00:00:00Z");
    const cycles = cycleLookup(contract, upTo);
    const planned = plannedInvoices(contract, upTo);
    expect(planned.length).toBeGreaterThan(30); // 22 months, 8 quarters
    for (const { key, start } of planned) {
      expect(cycles(key, start)).toEqual(plannedInvoiceByKey(contract, key, start));
      // A key asked with a start before its own: none, as plannedInvoiceByKey says.
      const before = new Date(start.getTime() - 1);
      expect(cycles(key, before)).toEqual(plannedInvoiceByKey(contract, key, before));
    }
    // A cycle after the run's `at`: planned on its own.
    const later = plannedInvoices(contract, new Date("2027-03-01T00:00:00Z")).at(-1);
    if (!later) throw new Error("the contract has later cycles");
    expect(cycles(later.key, later.start)).toEqual(plannedInvoiceByKey(contract, later.key, later.start));
  });
});
