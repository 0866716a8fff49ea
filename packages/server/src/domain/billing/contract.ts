import type { Commitment, Contract, ContractCreate, ContractPlan, Product, ProductGroup } from "@billing/shared";
import type { ChargePricing } from "./charge-models/types.js";

/**
 * A contract as the service holds it: every amount and quantity of its terms in integer micro-units (`…Micros`),
 * from the repository to the billing engine. Decimals are the API's: presenters/contracts.ts converts at the edge.
 */
export type CommitmentInMicros = Omit<Commitment, "units" | "price" | "overagePrice"> & {
  unitsMicros: number;
  priceMicros: number;
  overagePriceMicros?: number;
};

export type ProductInMicros = Omit<Product, "pricing" | "commitment"> & {
  pricing?: ChargePricing;
  commitment?: CommitmentInMicros;
};

export type ProductGroupInMicros = Omit<ProductGroup, "products" | "baseAmount" | "commitment"> & {
  products: ProductInMicros[];
  baseAmountMicros?: number;
  commitment?: CommitmentInMicros;
};

/** The terms that hold money: a contract's products and product groups. */
export interface TermsInMicros {
  products?: ProductInMicros[];
  productGroups?: ProductGroupInMicros[];
}

/**
 * When a test account's contract was entered, on the account's clock (its `createdAt` is real time, the order it was
 * stored in): what decides whether it lives through its end (enteredAtOf). Absent on live accounts' contracts.
 */
interface EnteredOnClock {
  enteredAt?: string;
}

/** A contract's fields that hold no money (status, dates, pauses): what its lifecycle reads on both sides. */
export type ContractLifeFields = Omit<Contract, "products" | "productGroups"> & EnteredOnClock;

/** When the contract was entered, on its account's billing time. */
export const enteredAtOf = (contract: ContractLifeFields) => Date.parse(contract.enteredAt ?? contract.createdAt);

/** An earlier version of a contract's terms: it bills from `effectiveFrom` (the contract's start for version 1). */
export interface TermsVersionInMicros extends TermsInMicros {
  version: number;
  effectiveFrom?: string;
}

/**
 * A customer's own terms for one product of a plan, in micro-units (docs/decisions.md, "Plans"): `product` names the
 * plan product by displayName or catalogProductId; each field given replaces the plan's on it.
 */
export interface OverrideInMicros {
  product: string;
  pricing?: ChargePricing;
  commitment?: CommitmentInMicros;
  taxRateCodes?: string[];
  /** Percent, two decimals at most: every price of the product less this share. */
  discountPercent?: number;
}

/**
 * `earlierTerms`: the versions of the terms before the current one, oldest first (absent while there are none).
 * `planOverrides`: on a plan's contract, its overrides (the API's `overrides`).
 */
export type ContractInMicros = Omit<Contract, "products" | "productGroups" | "overrides"> &
  EnteredOnClock &
  TermsInMicros & { earlierTerms?: TermsVersionInMicros[]; planOverrides?: OverrideInMicros[] };
export type ContractCreateInMicros = Omit<
  ContractCreate,
  "products" | "productGroups" | "planId" | "planVersion" | "overrides"
> &
  TermsInMicros & { plan?: ContractPlan; planOverrides?: OverrideInMicros[] };
