import type {
  Commitment,
  Contract,
  ContractCreate,
  ContractPlan,
  Discount,
  Product,
  ProductGroup,
} from "@billing/shared";
import type { SeatChange } from "../contracts/seats.js";
import type { Micros } from "../money/micros.js";
import type { ChargePricing } from "./charge-models/types.js";

/**
 * A contract as the service holds it: every amount and quantity of its terms in integer micro-units (`…Micros`),
 * from the repository to the billing engine. Decimals are the API's: presenters/contracts.ts converts at the edge.
 */
export type CommitmentInMicros = Omit<Commitment, "units" | "price" | "overagePrice"> & {
  unitsMicros: number;
  priceMicros: Micros;
  overagePriceMicros?: Micros;
};

/** A discount in micro-units: PERCENT 20 is `valueMicros` 20_000_000, AMOUNT 5.00 is 5_000_000. */
export type DiscountInMicros = Omit<Discount, "value"> & { valueMicros: number };

/**
 * A discount as the engine applies it: the terms' (`DiscountInMicros`), or a coupon's redemption, whose `cycles`
 * count from the first cycle not ended when it was redeemed (`redeemedAt`), and which applies to no cycle ended then.
 */
export type AppliedDiscount = DiscountInMicros & { redeemedAt?: string };

/** The deal terms of a product: its minimum and maximum a cycle, its discounts (seats are a plain count). */
export interface ProductTermsInMicros {
  minimumMicros?: Micros;
  maximumMicros?: Micros;
  discounts?: DiscountInMicros[];
}

export type ProductInMicros = Omit<Product, "pricing" | "commitment" | "minimum" | "maximum" | "discounts"> &
  ProductTermsInMicros & {
    pricing?: ChargePricing;
    commitment?: CommitmentInMicros;
  };

/** The deal terms of a contract as a whole: its minimum commitment and its discounts. */
export interface ContractTermsInMicros {
  minimumCommitment?: { amountMicros: Micros; period: "CYCLE" | "TERM" };
  discounts?: DiscountInMicros[];
}

/**
 * The contract's deal terms before an amendment of them (PATCH minimumCommitment or discounts from `effectiveFrom`):
 * those in force up to, not including, `until` (an ISO instant, a UTC midnight), back to the entry before's `until`.
 */
export type DealTermsVersion = ContractTermsInMicros & { until: string };

/** `earlierDealTerms`: the contract's deal terms before each amendment of them, oldest first (see dealTermsAt). */
export interface DealTermsHistory {
  earlierDealTerms?: DealTermsVersion[];
}

/** The seat changes of a contract's PER_SEAT products (POST /contracts/{id}/seats), as entered. */
export interface SeatsInMicros {
  seatChanges?: SeatChange[];
}

/**
 * Threshold (progressive) billing: the API's `billingThresholds` amounts, increasing, in micro-units of the
 * contract's currency (docs/decisions.md, "Threshold billing").
 */
export interface ThresholdsInMicros {
  billingThresholdsMicros?: Micros[];
}

/** The contract fields the engine holds in micro-units (ContractTermsInMicros, ThresholdsInMicros), besides terms. */
type DealFields = "minimumCommitment" | "discounts" | "billingThresholds";

export type ProductGroupInMicros = Omit<ProductGroup, "products" | "baseAmount" | "commitment"> & {
  products: ProductInMicros[];
  baseAmountMicros?: Micros;
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
export type ContractLifeFields = Omit<Contract, "products" | "productGroups" | DealFields> & EnteredOnClock;

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
export type ContractInMicros = Omit<Contract, "products" | "productGroups" | "overrides" | DealFields> &
  EnteredOnClock &
  TermsInMicros &
  ContractTermsInMicros &
  ThresholdsInMicros &
  DealTermsHistory &
  SeatsInMicros & { earlierTerms?: TermsVersionInMicros[]; planOverrides?: OverrideInMicros[] };
export type ContractCreateInMicros = Omit<
  ContractCreate,
  "products" | "productGroups" | "planId" | "planVersion" | "overrides" | DealFields
> &
  TermsInMicros &
  ContractTermsInMicros &
  ThresholdsInMicros & { plan?: ContractPlan; planOverrides?: OverrideInMicros[] };
