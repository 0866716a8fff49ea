import { MICROS } from "@billing/shared";
import type { AppliedDiscount, ContractInMicros, DiscountInMicros } from "../billing/contract.js";
import { applicableRates, NO_TAX, ratePpm, type TaxTerms } from "../billing/tax.js";
import { dealTermsAt } from "../contracts/deal-terms.js";
import { roundHalfUp } from "../money/currency.js";

/**
 * What makes a contract's recurring charges MRR beyond its terms (docs/decisions.md, "MRR"): the tax terms they are
 * priced under (a price under an inclusive rate holds its tax) and the coupons redeemed on it.
 */
export interface MrrTerms {
  tax: TaxTerms;
  coupons: readonly AppliedDiscount[];
}

/** No tax, no coupon: the charges as the terms state them. */
export const TERMS_ALONE: MrrTerms = { tax: NO_TAX, coupons: [] };

/** One recurring charge of a month, before discounts and tax: its product's names, cycle months, codes, discounts. */
export interface RecurringCharge {
  /** The catalogProductId and displayName of its product (or group): what a contract discount's `products` names. */
  names: readonly string[];
  months: number;
  micros: number;
  taxRateCodes?: readonly string[] | undefined;
  discounts: readonly DiscountInMicros[];
}

const PPM = 1_000_000n;

/** A discount that recurs (no `cycles` limit: one for the first cycles is a promotion, not the price). */
const recurs = (discount: AppliedDiscount) => discount.cycles === undefined;

/** Whether a recurring discount is in force at `at`: from its `from` (a coupon from its redemption), before `until`. */
const inForce = (discount: AppliedDiscount, at: Date) =>
  recurs(discount) &&
  (discount.from === undefined || at.getTime() >= Date.parse(discount.from)) &&
  (discount.until === undefined || at.getTime() < Date.parse(discount.until)) &&
  (discount.redeemedAt === undefined || at.getTime() >= Date.parse(discount.redeemedAt));

/** What a discount takes off a month of `micros`: PERCENT its share, AMOUNT (off a cycle) ÷ the cycle's months. */
function monthlyOff(discount: DiscountInMicros, micros: number, months: number): number {
  if (micros <= 0) return 0;
  const off =
    discount.type === "PERCENT"
      ? roundHalfUp(BigInt(micros) * BigInt(discount.valueMicros), 100n * MICROS, 1)
      : roundHalfUp(BigInt(discount.valueMicros), BigInt(months), 1);
  return Math.min(off, micros);
}

/** `off` taken from the charges' months in proportion to each (floored), the micro-units left one at a time. */
function shareOff(micros: number[], off: number): number[] {
  const total = micros.reduce((sum, value) => sum + value, 0);
  if (total <= 0 || off <= 0) return micros;
  const shares = micros.map((value) => Number((BigInt(Math.min(off, total)) * BigInt(value)) / BigInt(total)));
  let left = Math.min(off, total) - shares.reduce((sum, value) => sum + value, 0);
  for (let index = 0; left > 0 && index < micros.length; index += 1) {
    const more = Math.min(left, (micros[index] ?? 0) - (shares[index] ?? 0));
    shares[index] = (shares[index] ?? 0) + more;
    left -= more;
  }
  return micros.map((value, index) => value - (shares[index] ?? 0));
}

/**
 * The MRR of a contract's recurring charges at `at`, net: as the billing engine orders them, each product's own
 * recurring discounts in force, then the contract's (its deal terms then in force; those naming `products` on theirs
 * only) and its recurring coupons, each on what the ones before left (an AMOUNT shared in proportion, ÷ the months of
 * the first charge it applies to); then the tax an inclusive rate holds taken out of each charge (amount × 100 /
 * (100 + the inclusive rates)). To the micro-unit, half up. Example: 100.00 a month, 20% off, under a 25% inclusive
 * VAT: 80.00 × 100 / 125 = 64.00.
 */
export function netRecurringMicros(
  contract: ContractInMicros,
  charges: readonly RecurringCharge[],
  at: Date,
  terms: MrrTerms,
): number {
  let micros = charges.map((charge) =>
    charge.discounts
      .filter((discount) => inForce(discount, at))
      .reduce((left, discount) => left - monthlyOff(discount, left, charge.months), charge.micros),
  );
  const contractDiscounts = [...(dealTermsAt(contract, at).discounts ?? []), ...terms.coupons];
  for (const discount of contractDiscounts.filter((candidate) => inForce(candidate, at))) {
    const eligible = charges.map(
      (charge) => discount.products === undefined || charge.names.some((name) => discount.products?.includes(name)),
    );
    const first = charges.findIndex((_, index) => eligible[index]);
    if (first < 0) continue;
    const picked = micros.filter((_, index) => eligible[index]);
    const pickedTotal = picked.reduce((sum, value) => sum + value, 0);
    const after = shareOff(picked, monthlyOff(discount, pickedTotal, charges[first]?.months ?? 1));
    let next = 0;
    micros = micros.map((value, index) => (eligible[index] ? (after[next++] as number) : value));
  }
  return charges.reduce((sum, charge, index) => {
    const inclusive = applicableRates(charge.taxRateCodes, terms.tax)
      .filter((rate) => rate.inclusive)
      .reduce((ppm, rate) => ppm + ratePpm(rate.rate), 0n);
    return sum + roundHalfUp(BigInt(micros[index] ?? 0) * PPM, PPM + inclusive, 1);
  }, 0);
}

/** The instants a contract's MRR may change at by its discounts and coupons: their `from`, `until`, redemptions. */
export function discountMoments(contract: ContractInMicros, terms: MrrTerms): number[] {
  const discounts: AppliedDiscount[] = [
    ...(contract.discounts ?? []),
    ...(contract.earlierDealTerms ?? []).flatMap((version) => version.discounts ?? []),
    ...[...(contract.products ?? []), ...(contract.productGroups ?? []).flatMap((group) => group.products)].flatMap(
      (product) => product.discounts ?? [],
    ),
    ...terms.coupons,
  ];
  const deals = (contract.earlierDealTerms ?? []).map((version) => Date.parse(version.until));
  return [
    ...deals,
    ...discounts
      .filter(recurs)
      .flatMap((discount) => [discount.from, discount.until, discount.redeemedAt])
      .flatMap((instant) => (instant === undefined ? [] : [Date.parse(instant)])),
  ];
}
