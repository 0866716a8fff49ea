import {
  type Contract,
  fromMicros,
  invoiceDraft,
  type Pricing,
  type RevenueBreakdown,
  toMicros,
} from "@billing/shared";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { InvoiceBasis } from "../src/domain/billing/invoice.js";
import { type CycleCharge, plannedInvoices } from "../src/domain/billing/items.js";
import { composeInvoice } from "../src/domain/billing/pipeline.js";
import { NO_TAX, type TaxTerms } from "../src/domain/billing/tax.js";
import { asMicros } from "../src/domain/money/micros.js";
import { contractInMicros } from "../src/presenters/contracts.js";
import { presentInvoiceDraft } from "../src/presenters/invoices.js";
import { billingAccount, committed, sumMicros } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/**
 * Properties of the billing engine: over the pure functions (docs/decisions.md, "Billing engine"), and through the API.
 */

const DAY_MS = 86_400_000;
const MICROS_PER_CENT = 10_000;
/** Payment terms and issue date: they set the due date only, which these properties do not look at. */
const TERMS = { issuedAt: new Date(Date.UTC(2027, 0, 1)), paymentTerms: { netDays: 30 } };
const FIELDS: (keyof RevenueBreakdown)[] = [
  "subtotal",
  "overage",
  "discount",
  "creditsUsed",
  "tax",
  "taxInclusive",
  "total",
];

// ---- Generators: contracts as the API accepts them (amounts with up to 6 decimals), kept small enough that
// an invoice stays below the 1e9 USD money ceiling.
const amountMicros = (maxUnits: number) => fc.integer({ min: 0, max: maxUnits * 1_000_000 });
const amount = (maxUnits: number) => amountMicros(maxUnits).map(fromMicros);
const scheduling = fc.record({
  duration: fc.record({ unit: fc.constant("MONTH" as const), value: fc.integer({ min: 1, max: 13 }) }),
  billingDay: fc.integer({ min: 1, max: 31 }),
});
const commitment = fc.record(
  { units: amount(10_000), price: amount(1_000), scheduling },
  { requiredKeys: ["units", "price"] },
);
/**
 * Every price type, with its amounts kept in micro-units beside the API's decimals (the oracle below reads those):
 * usage prices small enough that 1e6 units stay far below the money ceiling.
 */
const tiersMicros = fc
  .array(
    fc.record({ width: fc.integer({ min: 1, max: 50_000_000 }), unit: amountMicros(1), flat: amountMicros(100) }),
    {
      minLength: 1,
      maxLength: 4,
    },
  )
  .map((tiers) => {
    let upTo = 0;
    return tiers.map(({ width, unit, flat }, index) => {
      upTo += width;
      return { upTo: index === tiers.length - 1 ? null : upTo, unit, flat };
    });
  });
type TiersMicros = { upTo: number | null; unit: number; flat: number }[];
type PricingMicros =
  | { type: "ONE_TIME"; price: number }
  | { type: "FLAT"; price: number }
  | { type: "PER_UNIT"; price: number }
  | { type: "PACKAGE"; price: number; packageSize: number }
  | { type: "GRADUATED"; tiers: TiersMicros }
  | { type: "VOLUME"; tiers: TiersMicros };
const fixedPricingMicros = fc.record({
  type: fc.constantFrom("ONE_TIME" as const, "FLAT" as const),
  price: amountMicros(10_000),
});
const usagePricingMicros = fc.oneof(
  fc.record({ type: fc.constant("PER_UNIT" as const), price: amountMicros(1) }),
  fc.record({
    type: fc.constant("PACKAGE" as const),
    price: amountMicros(10),
    packageSize: fc.integer({ min: 1_000_000, max: 100_000_000 }),
  }),
  fc.record({ type: fc.constantFrom("GRADUATED" as const, "VOLUME" as const), tiers: tiersMicros }),
);
/** The price as the API states it: decimals. */
const pricingOf = (price: PricingMicros): Pricing => {
  if (price.type === "GRADUATED" || price.type === "VOLUME")
    return {
      type: price.type,
      tiers: price.tiers.map(({ upTo, unit, flat }) => ({
        upTo: upTo === null ? null : fromMicros(upTo),
        unitPrice: fromMicros(unit),
        flatPrice: fromMicros(flat),
      })),
    };
  if (price.type === "PACKAGE")
    return { type: price.type, price: fromMicros(price.price), packageSize: fromMicros(price.packageSize) };
  return { type: price.type, price: fromMicros(price.price) };
};
const meter = fc.constantFrom("m1", "m2", "m3");
// A fixed price (or none) may have a commitment and be prepaid; a usage price needs a meter and allows neither.
const fixedProduct = fc.record(
  {
    displayName: fc.constantFrom("Seats", "API", "Storage"),
    scheduling,
    pricing: fixedPricingMicros.map(pricingOf),
    catalogProductId: meter,
    commitment,
    paymentTerm: fc.constant("Prepayment" as const),
  },
  { requiredKeys: ["displayName"] },
);
const usageProduct = fc.record(
  {
    displayName: fc.constantFrom("Calls", "Storage"),
    scheduling,
    pricing: usagePricingMicros.map(pricingOf),
    catalogProductId: meter,
  },
  { requiredKeys: ["displayName", "pricing", "catalogProductId"] },
);
const product = fc.oneof(fixedProduct, usageProduct);
const productGroup = fc.record(
  {
    displayName: fc.constantFrom("Bundle", "Suite"),
    products: fc.array(fixedProduct, { maxLength: 3 }),
    baseAmount: amount(100_000),
    commitment,
  },
  { requiredKeys: ["displayName", "products"] },
);
const instant = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2027, 0, 1) });
/** An active contract starting at `start`, ending `length` ms later (never when undefined), with `fields`. */
const contractOf = (start: number, length: number | undefined, fields: Partial<Contract>) =>
  contractInMicros({
    id: "0123456789abcdef01234567",
    customerId: "89abcdef0123456789abcdef",
    name: "Random",
    currency: "USD",
    startDate: new Date(start).toISOString(),
    ...(length !== undefined && { endDate: new Date(start + length).toISOString() }),
    autoRenewContract: true,
    status: "Active",
    createdAt: new Date(start).toISOString(),
    updatedAt: new Date(start).toISOString(),
    ...fields,
  } as Contract);
const contractAndHorizon = fc
  .record({
    start: instant,
    length: fc.option(fc.integer({ min: 0, max: 900 * DAY_MS }), { nil: undefined }),
    horizon: fc.integer({ min: 0, max: 1100 * DAY_MS }),
    products: fc.array(product, { maxLength: 3 }),
    productGroups: fc.array(productGroup, { maxLength: 2 }),
    shouldProRateInvoices: fc.boolean(),
  })
  .map(({ start, length, horizon, ...fields }) => ({
    contract: contractOf(start, length, fields),
    until: new Date(start + horizon),
  }));
// Usage per charge (micro-units, up to 1e6 units) and credit balances (micro-units, sub-cents included).
const usages = fc.array(fc.bigInt({ min: 0n, max: 1_000_000_000_000n }), { minLength: 1, maxLength: 8 });
const balance = fc.oneof(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 0, max: 100_000_000_000 }));
/** Up to three rates named by the contract, each exclusive or inclusive, 0 to 30 % with up to 4 decimals. */
const taxTerms = fc
  .array(fc.record({ rate: fc.integer({ min: 0, max: 300_000 }), inclusive: fc.boolean() }), { maxLength: 3 })
  .map(
    (rates): TaxTerms => ({
      ...NO_TAX,
      fallbackCodes: [rates.map((_, index) => `R${index}`)],
      liveRates: new Map(
        rates.map(({ rate, inclusive }, index) => [
          `R${index}`,
          { code: `R${index}`, name: `R${index}`, rate: rate / 10_000, inclusive },
        ]),
      ),
    }),
  );

/**
 * Contracts of up to four products named P0..P3, each with one price of any type (usage prices on a meter of their
 * own), and the prices in micro-units by product name for the oracle.
 */
const pricedContract = fc
  .record({
    start: instant,
    length: fc.option(fc.integer({ min: 1, max: 400 * DAY_MS }), { nil: undefined }),
    horizon: fc.integer({ min: 0, max: 500 * DAY_MS }),
    prices: fc.array(
      fc.record(
        { pricing: fc.oneof(fixedPricingMicros, usagePricingMicros), scheduling },
        { requiredKeys: ["pricing"] },
      ),
      { minLength: 1, maxLength: 4 },
    ),
    shouldProRateInvoices: fc.boolean(),
  })
  .map(({ start, length, horizon, prices, shouldProRateInvoices }) => ({
    contract: contractOf(start, length, {
      shouldProRateInvoices,
      products: prices.map(({ pricing, scheduling: schedule }, index) => ({
        displayName: `P${index}`,
        ...(schedule && { scheduling: schedule }),
        pricing: pricingOf(pricing),
        ...(pricing.type !== "ONE_TIME" && pricing.type !== "FLAT" && { catalogProductId: `meter${index}` }),
      })),
    }),
    until: new Date(start + horizon),
    prices: new Map(prices.map(({ pricing }, index) => [`P${index}`, pricing])),
  }));

/** Usage of a charge: any, small, or (`atBound`) a micro-unit either side of, or at, one of its price's bounds. */
const usagesNearBounds = fc.array(
  fc.record({
    micros: fc.oneof(fc.bigInt({ min: 0n, max: 1_000_000_000_000n }), fc.bigInt({ min: 0n, max: 300_000_000n })),
    offset: fc.constantFrom(-1n, 0n, 1n),
    atBound: fc.boolean(),
  }),
  { minLength: 1, maxLength: 8 },
);
/** Where a price changes: its tiers' ends, or its first package sizes. */
const boundsOf = (price: PricingMicros): bigint[] => {
  if (price.type === "GRADUATED" || price.type === "VOLUME")
    return price.tiers.flatMap(({ upTo }) => (upTo === null ? [] : [BigInt(upTo)]));
  if (price.type === "PACKAGE") return [1n, 2n, 3n].map((count) => count * BigInt(price.packageSize));
  return [];
};

/**
 * The oracle: a line's charge in whole cents, worked out from the price's definition (README, docs/decisions.md
 * "Price types"), exact over integers and rounded once, half up. Undefined: the price makes no line in this cycle.
 */
function oracleCents(
  price: PricingMicros,
  usageMicros: bigint,
  share: { days: bigint; periodDays: bigint },
  first: boolean,
): bigint | undefined {
  const MILLION = 1_000_000n;
  // numerator / denominator micro-units, in cents (10_000 micro-units each), half up.
  const cents = (numerator: bigint, denominator: bigint) =>
    (2n * numerator + 10_000n * denominator) / (20_000n * denominator);
  switch (price.type) {
    case "ONE_TIME":
      return first ? cents(BigInt(price.price), 1n) : undefined;
    case "FLAT":
      return cents(BigInt(price.price) * share.days, share.periodDays);
    case "PER_UNIT":
      return cents(usageMicros * BigInt(price.price), MILLION);
    case "PACKAGE": {
      const size = BigInt(price.packageSize);
      const packages = usageMicros / size + (usageMicros % size === 0n ? 0n : 1n);
      return cents(packages * BigInt(price.price), 1n);
    }
    case "GRADUATED": {
      let total = 0n;
      let lower = 0n;
      for (const { upTo, unit, flat } of price.tiers) {
        const upper = upTo === null ? usageMicros : BigInt(upTo);
        if (usageMicros > lower) {
          const inTier = (usageMicros < upper ? usageMicros : upper) - lower;
          total += inTier * BigInt(unit) + BigInt(flat) * MILLION;
        }
        lower = upper;
      }
      return cents(total, MILLION);
    }
    case "VOLUME": {
      if (usageMicros === 0n) return 0n;
      const tier = price.tiers.find(({ upTo }) => upTo === null || usageMicros <= BigInt(upTo))!;
      return cents(usageMicros * BigInt(tier.unit) + BigInt(tier.flat) * MILLION, MILLION);
    }
  }
}

const micros = (breakdown: RevenueBreakdown, field: keyof RevenueBreakdown) => toMicros(breakdown[field]);
const wholeCents = (value: number) => toMicros(value) % MICROS_PER_CENT === 0;

/**
 * The invoice as the API shows it (the figures these properties are stated on), composed as every caller of
 * priceCycle composes it, paid by a balance of `balanceMicros` as a preview's (services/billing/price-cycle.ts).
 */
const presentedInvoice = async (basis: InvoiceBasis, balanceMicros: number) =>
  presentInvoiceDraft(
    await composeInvoice(basis, {
      check: (unpaid) => unpaid,
      payFromCredits: async (dueMicros) => asMicros(Math.min(balanceMicros, dueMicros)),
    }),
  );

describe("composeInvoice over plannedInvoices (fast-check)", () => {
  it(
    "lines add up exactly to the invoice, in whole cents, never negative, credits within the balance; total = " +
      "subtotal + overage − discount + tax − creditsUsed, taxes of either kind",
    async () => {
      await fc.assert(
        fc.asyncProperty(contractAndHorizon, usages, balance, taxTerms, async (terms, usage, balanceMicros, tax) => {
          const { contract, until } = terms;
          for (const [cycleIndex, cycle] of plannedInvoices(contract, until).entries()) {
            const usageOfCharge = (index: number) => usage[(cycleIndex + index) % usage.length]!;
            const meterUsage = cycle.charges.map(
              ({ item }, index) => new Map(item.meters.map((meter) => [meter, usageOfCharge(index)])),
            );
            const basis = { contract, cycle, usage: meterUsage, ...TERMS, tax };
            const invoice = await presentedInvoice(basis, balanceMicros);
            const unpaid = await presentedInvoice(basis, 0);

            for (const field of FIELDS) {
              const lineSum = invoice.lineItems.reduce((sum, line) => sum + micros(line.revenueBreakdown, field), 0);
              expect(lineSum, field).toBe(micros(invoice.revenueBreakdown, field));
              expect(wholeCents(invoice.revenueBreakdown[field]), field).toBe(true);
              for (const line of invoice.lineItems)
                expect(wholeCents(line.revenueBreakdown[field]), `${line.name} ${field}`).toBe(true);
            }
            for (const { name, revenueBreakdown: figures } of [invoice, ...invoice.lineItems]) {
              const [subtotal, overage, discount, added, creditsUsed] = (
                ["subtotal", "overage", "discount", "tax", "creditsUsed"] as const
              ).map((field) => micros(figures, field));
              expect(micros(figures, "total"), name).toBe(subtotal! + overage! - discount! + added! - creditsUsed!);
            }
            expect(invoice.amount).toBe(invoice.revenueBreakdown.total);
            expect(invoice.revenueBreakdown.total).toBeGreaterThanOrEqual(0);
            for (const line of invoice.lineItems) expect(line.revenueBreakdown.total).toBeGreaterThanOrEqual(0);

            // Credits: at most the balance; exactly its whole cents, or the total due when that is less.
            const creditsUsed = micros(invoice.revenueBreakdown, "creditsUsed");
            expect(creditsUsed).toBeLessThanOrEqual(balanceMicros);
            const wholeCentsOfBalance = balanceMicros - (balanceMicros % MICROS_PER_CENT);
            expect(creditsUsed).toBe(Math.min(wholeCentsOfBalance, micros(unpaid.revenueBreakdown, "total")));
            expect(micros(invoice.revenueBreakdown, "total")).toBe(
              micros(unpaid.revenueBreakdown, "total") - creditsUsed,
            );

            // What the repository stores must pass its schema (money rule, cycle end after start, amount = total).
            expect(invoiceDraft.safeParse(invoice).error).toBeUndefined();
          }
        }),
        { numRuns: 300 },
      );
    },
  );

  it("prices every line of every price type as an independent oracle does, prorated or not", async () => {
    await fc.assert(
      fc.asyncProperty(pricedContract, usagesNearBounds, async ({ contract, until, prices }, usage) => {
        const dayOf = (instant: number) => Math.floor(instant / DAY_MS);
        const startDay = dayOf(Date.parse(contract.startDate));
        const endDay = contract.endDate === undefined ? Number.POSITIVE_INFINITY : dayOf(Date.parse(contract.endDate));
        for (const [cycleIndex, cycle] of plannedInvoices(contract, until).entries()) {
          const usageOfCharge = (index: number) => {
            const { micros, offset, atBound } = usage[(cycleIndex + index) % usage.length]!;
            const bounds = boundsOf(prices.get(cycle.charges[index]!.item.name)!);
            if (!atBound || bounds.length === 0) return micros;
            const bound = bounds[Number(micros % BigInt(bounds.length))]! + offset;
            return bound < 0n ? 0n : bound;
          };
          const meterUsage = cycle.charges.map(
            ({ item }, index) => new Map(item.meters.map((meter) => [meter, usageOfCharge(index)])),
          );
          const invoice = await presentedInvoice({ contract, cycle, usage: meterUsage, tax: NO_TAX, ...TERMS }, 0);

          const expected = new Map<string, bigint>();
          cycle.charges.forEach(({ item, cycle: { start, end }, first }, index) => {
            // The share of the cycle the contract covers, in whole UTC days.
            const from = Math.max(dayOf(start.getTime()), startDay);
            const to = Math.min(dayOf(end.getTime()), endDay);
            const periodDays = dayOf(end.getTime()) - dayOf(start.getTime());
            const share = contract.shouldProRateInvoices
              ? { days: BigInt(Math.max(0, to - from)), periodDays: BigInt(periodDays) }
              : { days: 1n, periodDays: 1n };
            const price = prices.get(item.name)!;
            const cents = oracleCents(price, usageOfCharge(index), share, first);
            if (cents !== undefined) expected.set(item.name, cents);
          });
          const charged = new Map(
            invoice.lineItems
              .filter((line) => line.revenueBreakdown.subtotal > 0 || expected.has(line.name))
              .map((line) => [line.name, BigInt(Math.round(line.revenueBreakdown.subtotal * 100))]),
          );
          expect(charged).toEqual(new Map([...expected].filter(([name, cents]) => cents > 0n || charged.has(name))));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("each item's cycles follow one another from the one containing the start day, on the clamped billing day", () => {
    const daysInMonth = (date: Date) =>
      new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
    const dayOf = (instant: number) => Math.floor(instant / DAY_MS) * DAY_MS;
    fc.assert(
      fc.property(contractAndHorizon, ({ contract, until }) => {
        // Whole UTC days: from the start's day up to, not including, the end's day.
        const startDay = dayOf(Date.parse(contract.startDate));
        const endDay = contract.endDate === undefined ? Number.POSITIVE_INFINITY : dayOf(Date.parse(contract.endDate));
        const invoices = plannedInvoices(contract, until);
        if (endDay <= startDay) expect(invoices).toEqual([]);
        expect(new Set(invoices.map((invoice) => invoice.key)).size).toBe(invoices.length);
        const byItem = new Map<CycleCharge["item"], CycleCharge[]>();
        invoices.forEach((invoice, index) => {
          if (index > 0) expect(invoice.dueAt.getTime()).toBeGreaterThanOrEqual(invoices[index - 1]!.dueAt.getTime());
          expect(invoice.end.getTime()).toBeGreaterThan(invoice.start.getTime());
          expect(invoice.end.getTime()).toBeLessThanOrEqual(endDay);
          // Made once ended, or (prepaid) once started.
          if (!invoice.prepaid) expect(invoice.dueAt).toEqual(invoice.end);
          else expect(invoice.dueAt >= invoice.start && invoice.dueAt < invoice.end).toBe(true);
          for (const charge of invoice.charges) {
            // Only items of the same cycle and the same timing share an invoice.
            expect(charge.item.prepaid).toBe(invoice.prepaid);
            expect(charge.cycle.start).toEqual(invoice.start);
            expect(Math.min(charge.cycle.end.getTime(), endDay)).toBe(invoice.end.getTime());
            byItem.set(charge.item, [...(byItem.get(charge.item) ?? []), charge]);
          }
        });
        for (const [item, unordered] of byItem) {
          const charges = unordered.sort((a, b) => a.cycle.start.getTime() - b.cycle.start.getTime());
          const [first] = charges;
          expect(first!.cycle.start.getTime()).toBeLessThanOrEqual(startDay);
          expect(first!.cycle.end.getTime()).toBeGreaterThan(startDay);
          expect(charges.map((charge) => charge.first)).toEqual(charges.map((_, index) => index === 0));
          charges.forEach(({ cycle }, index) => {
            if (index > 0) expect(cycle.start).toEqual(charges[index - 1]!.cycle.end);
            expect(cycle.start.getTime()).toBeLessThan(endDay);
            expect(cycle.start.getTime()).toBeLessThanOrEqual(until.getTime());
            expect(cycle.start.getTime() % DAY_MS).toBe(0);
            expect(cycle.start.getUTCDate()).toBe(Math.min(item.scheduling.billingDay, daysInMonth(cycle.start)));
          });
          // None is missing: the next cycle would start after the horizon or at or after the contract's end day.
          const nextStart = charges.at(-1)!.cycle.end.getTime();
          expect(nextStart > until.getTime() || nextStart >= endDay).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});

/** Map.groupBy, which Node 20 lacks. */
const groupBy = <T, K>(items: T[], keyOf: (item: T) => K) => {
  const groups = new Map<K, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return groups;
};

describe("credit ledger through the API (fast-check)", () => {
  const server = useTestServer();

  const step = fc.oneof(
    fc.record({ kind: fc.constant("grant" as const), micros: fc.integer({ min: 1, max: 3_000_000_000 }) }),
    fc.record({
      kind: fc.constant("run" as const),
      months: fc.integer({ min: 0, max: 3 }),
      concurrent: fc.integer({ min: 1, max: 3 }),
    }),
  );
  const plan = fc.record({
    // cents per cycle, per contract
    prices: fc.array(fc.integer({ min: 1, max: 200_000 }), { minLength: 1, maxLength: 2 }),
    steps: fc.array(step, { minLength: 1, maxLength: 5 }),
  });

  it("after grants and billing runs, the balance is the sum of the ledger and never below zero; each invoice is " +
    "paid by one entry per grant, once", async () => {
    await fc.assert(
      fc.asyncProperty(plan, async ({ prices, steps }) => {
        const account = await billingAccount(server);
        for (const price of prices)
          await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(1, price / 100)] });
        let month = 0;
        for (const action of steps) {
          if (action.kind === "grant") await account.grant(fromMicros(action.micros));
          else {
            month += action.months;
            const at = new Date(Date.UTC(2024, month, 1)).toISOString();
            await Promise.all(Array.from({ length: action.concurrent }, () => account.run(at)));
          }
          const ledger = await account.ledger();
          let running = 0;
          for (const entry of ledger) {
            running += toMicros(entry.amount);
            expect(toMicros(entry.balanceAfterEntry)).toBe(running);
            expect(entry.balanceAfterEntry).toBeGreaterThanOrEqual(0);
          }
          expect(toMicros(await account.balance())).toBe(sumMicros(ledger.map((entry) => entry.amount)));

          // A payment is consecutive Usage entries, one per grant burned, whole cents together.
          const invoices = await account.allInvoices();
          const payments = groupBy(
            ledger.filter((entry) => entry.type === "Usage"),
            (entry) => entry.invoiceId,
          );
          expect([...payments.keys()].every((invoiceId) => invoices.some((invoice) => invoice.id === invoiceId))).toBe(
            true,
          );
          for (const invoice of invoices) {
            const debits = payments.get(invoice.id) ?? [];
            expect(toMicros(invoice.revenueBreakdown.creditsUsed)).toBe(
              0 - sumMicros(debits.map((entry) => entry.amount)),
            );
            expect(wholeCents(invoice.revenueBreakdown.creditsUsed)).toBe(true);
            const places = debits.map((entry) => ledger.indexOf(entry));
            expect(places).toEqual(places.map((_, index) => places[0]! + index));
            expect(new Set(debits.map((entry) => entry.grantId)).size).toBe(debits.length);
          }
          // No grant gave more than it held.
          const held = groupBy(ledger, (entry) => entry.grantId);
          expect([...held.values()].every((moves) => sumMicros(moves.map((entry) => entry.amount)) >= 0)).toBe(true);
        }
      }),
      { numRuns: 24 },
    );
  }, 300_000);
});
