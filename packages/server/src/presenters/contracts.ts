import {
  type Commitment,
  type Contract,
  type ContractCreate,
  type Discount,
  fromMicros,
  type PlanOverride,
  type PriceTier,
  type Pricing,
  type Product,
  type ProductGroup,
  toMicros,
} from "@billing/shared";
import type { ChargePricing, PriceTier as PriceTierInMicros } from "../domain/billing/charge-models/types.js";
import type {
  CommitmentInMicros,
  ContractInMicros,
  ContractTermsInMicros,
  DiscountInMicros,
  OverrideInMicros,
  ProductGroupInMicros,
  ProductInMicros,
  TermsInMicros,
  ThresholdsInMicros,
} from "../domain/billing/contract.js";
import { amountOf, microsOf } from "./money.js";

// The contract's edge: its terms as the API states them (decimal USD and units) to and from micro-units.

const tierInMicros = ({ upTo, unitPrice, flatPrice }: PriceTier): PriceTierInMicros => ({
  upToMicros: upTo === null ? null : toMicros(upTo),
  unitPriceMicros: microsOf(unitPrice),
  ...(flatPrice !== undefined && { flatPriceMicros: microsOf(flatPrice) }),
});
const presentTier = ({ upToMicros, unitPriceMicros, flatPriceMicros }: PriceTierInMicros): PriceTier => ({
  upTo: upToMicros === null ? null : fromMicros(upToMicros),
  unitPrice: fromMicros(unitPriceMicros),
  ...(flatPriceMicros !== undefined && { flatPrice: fromMicros(flatPriceMicros) }),
});

/**
 * A product's price as the API states it, in the engine's micro-units, by field name: `tiers` tier by tier, every
 * other amount or quantity (`price`, `packageSize`) to `…Micros` (ChargePricing is derived from Pricing the same way).
 */
export function pricingInMicros({ type, ...fields }: Pricing): ChargePricing {
  const converted = Object.entries(fields).map(([name, value]: [string, number | PriceTier[]]) =>
    typeof value === "number" ? [`${name}Micros`, toMicros(value)] : [name, value.map(tierInMicros)],
  );
  return Object.fromEntries([["type", type], ...converted]) as ChargePricing;
}

/** The inverse of pricingInMicros: the price as the API states it. */
export function presentPricing({ type, ...fields }: ChargePricing): Pricing {
  const presented = Object.entries(fields).map(([name, value]: [string, number | readonly PriceTierInMicros[]]) =>
    typeof value === "number" ? [name.replace(/Micros$/, ""), fromMicros(value)] : [name, value.map(presentTier)],
  );
  return Object.fromEntries([["type", type], ...presented]) as Pricing;
}

const commitmentInMicros = ({ units, price, overagePrice, ...rest }: Commitment): CommitmentInMicros => ({
  ...rest,
  unitsMicros: toMicros(units),
  priceMicros: microsOf(price),
  ...(overagePrice !== undefined && { overagePriceMicros: microsOf(overagePrice) }),
});
const presentCommitment = ({ unitsMicros, priceMicros, overagePriceMicros, ...rest }: CommitmentInMicros) => ({
  ...rest,
  units: fromMicros(unitsMicros),
  price: fromMicros(priceMicros),
  ...(overagePriceMicros !== undefined && { overagePrice: fromMicros(overagePriceMicros) }),
});

const discountInMicros = ({ value, ...rest }: Discount): DiscountInMicros => ({
  ...rest,
  valueMicros: toMicros(value),
});
const presentDiscount = ({ valueMicros, ...rest }: DiscountInMicros): Discount => ({
  ...rest,
  value: fromMicros(valueMicros),
});

// Optional fields are spread in only when present: the driver would store an `undefined` as null.
const productInMicros = ({ pricing, commitment, minimum, maximum, discounts, ...rest }: Product): ProductInMicros => ({
  ...rest,
  ...(pricing && { pricing: pricingInMicros(pricing) }),
  ...(commitment && { commitment: commitmentInMicros(commitment) }),
  ...(minimum !== undefined && { minimumMicros: microsOf(minimum) }),
  ...(maximum !== undefined && { maximumMicros: microsOf(maximum) }),
  ...(discounts && { discounts: discounts.map(discountInMicros) }),
});
export const presentProduct = ({
  pricing,
  commitment,
  minimumMicros,
  maximumMicros,
  discounts,
  ...rest
}: ProductInMicros): Product => ({
  ...rest,
  ...(pricing && { pricing: presentPricing(pricing) }),
  ...(commitment && { commitment: presentCommitment(commitment) }),
  ...(minimumMicros !== undefined && { minimum: fromMicros(minimumMicros) }),
  ...(maximumMicros !== undefined && { maximum: fromMicros(maximumMicros) }),
  ...(discounts && { discounts: discounts.map(presentDiscount) }),
});

/** A contract's own deal terms (minimum commitment, discounts) in micro-units. */
export const dealTermsInMicros = ({
  minimumCommitment,
  discounts,
}: Pick<ContractCreate, "minimumCommitment" | "discounts">): ContractTermsInMicros => ({
  ...(minimumCommitment && {
    minimumCommitment: { amountMicros: microsOf(minimumCommitment.amount), period: minimumCommitment.period },
  }),
  ...(discounts && { discounts: discounts.map(discountInMicros) }),
});
const presentDealTerms = ({ minimumCommitment, discounts }: ContractTermsInMicros) => ({
  ...(minimumCommitment && {
    minimumCommitment: { amount: fromMicros(minimumCommitment.amountMicros), period: minimumCommitment.period },
  }),
  ...(discounts && { discounts: discounts.map(presentDiscount) }),
});

const productGroupInMicros = ({ products, baseAmount, commitment, ...rest }: ProductGroup): ProductGroupInMicros => ({
  ...rest,
  products: products.map(productInMicros),
  ...(baseAmount !== undefined && { baseAmountMicros: microsOf(baseAmount) }),
  ...(commitment && { commitment: commitmentInMicros(commitment) }),
});
export const presentProductGroup = ({
  products,
  baseAmountMicros,
  commitment,
  ...rest
}: ProductGroupInMicros): ProductGroup => ({
  ...rest,
  products: products.map(presentProduct),
  ...(baseAmountMicros !== undefined && { baseAmount: fromMicros(baseAmountMicros) }),
  ...(commitment && { commitment: presentCommitment(commitment) }),
});

/** A plan override as the API states it, in micro-units (and back). */
export const overrideInMicros = ({ pricing, commitment, ...rest }: PlanOverride): OverrideInMicros => ({
  ...rest,
  ...(pricing && { pricing: pricingInMicros(pricing) }),
  ...(commitment && { commitment: commitmentInMicros(commitment) }),
});
export const presentOverride = ({ pricing, commitment, ...rest }: OverrideInMicros): PlanOverride => ({
  ...rest,
  ...(pricing && { pricing: presentPricing(pricing) }),
  ...(commitment && { commitment: presentCommitment(commitment) }),
});

/** A contract's fields other than its terms (converted) and what names a plan (resolved, never stored as given). */
type ContractBesideTerms<T> = Omit<
  T,
  | "products"
  | "productGroups"
  | "overrides"
  | "planId"
  | "planVersion"
  | "minimumCommitment"
  | "discounts"
  | "billingThresholds"
>;

/**
 * A contract as the API states it (created, or a test's fixture), its terms in micro-units; what names a plan
 * (`planId`, `planVersion`, `overrides`) is resolved by the plan's service, not stored as given.
 */
export const contractInMicros = <T extends ContractCreate | Contract>({
  products,
  productGroups,
  minimumCommitment,
  discounts,
  billingThresholds,
  ...given
}: T): ContractBesideTerms<T> & TermsInMicros & ContractTermsInMicros & ThresholdsInMicros => {
  const {
    overrides: _overrides,
    planId: _planId,
    planVersion: _planVersion,
    ...rest
  } = given as T & {
    overrides?: unknown;
    planId?: unknown;
    planVersion?: unknown;
  };
  return {
    ...(rest as ContractBesideTerms<T>),
    ...dealTermsInMicros({ minimumCommitment, discounts }),
    ...(billingThresholds && { billingThresholdsMicros: billingThresholds.map(({ amount }) => microsOf(amount)) }),
    ...(products && { products: products.map(productInMicros) }),
    ...(productGroups && { productGroups: productGroups.map(productGroupInMicros) }),
  };
};

/** Terms as the API states them (a contract's, an amendment's, a simulation's, a plan's), in micro-units. */
export const termsInMicros = ({
  products,
  productGroups,
}: Pick<ContractCreate, "products" | "productGroups">): TermsInMicros => ({
  ...(products && { products: products.map(productInMicros) }),
  ...(productGroups && { productGroups: productGroups.map(productGroupInMicros) }),
});

/** A contract as the API answers it: its current terms (the earlier versions are the billing engine's). */
export const presentContract = ({
  products,
  productGroups,
  earlierTerms: _earlier,
  earlierDealTerms: _earlierDeal,
  enteredAt: _entered,
  planOverrides,
  minimumCommitment,
  discounts,
  billingThresholdsMicros,
  seatChanges: _seats,
  ...rest
}: ContractInMicros): Contract => ({
  ...rest,
  ...presentDealTerms({ minimumCommitment, discounts }),
  ...(billingThresholdsMicros && {
    billingThresholds: billingThresholdsMicros.map((micros) => ({ amount: amountOf(micros) })),
  }),
  ...(planOverrides && { overrides: planOverrides.map(presentOverride) }),
  ...(products && { products: products.map(presentProduct) }),
  ...(productGroups && { productGroups: productGroups.map(presentProductGroup) }),
});

/** Terms in micro-units as the API states them (a plan version's). */
export const presentTerms = ({ products, productGroups }: TermsInMicros) => ({
  ...(products && { products: products.map(presentProduct) }),
  ...(productGroups && { productGroups: productGroups.map(presentProductGroup) }),
});
