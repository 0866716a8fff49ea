import {
  type ContractAmendment,
  type ContractCreate,
  type ContractPlan,
  type ContractStatus,
  fromMicros,
  toMicros,
} from "@billing/shared";
import { type Document, ObjectId } from "mongodb";
import { canonicalId, iso } from "../db/ids.js";
import { loadCustomFields, type StoredCustomField, storeCustomFields } from "../db/json-fields.js";
import type {
  CommitmentInMicros,
  ContractCreateInMicros,
  ContractInMicros,
  ContractTermsInMicros,
  OverrideInMicros,
  ProductGroupInMicros,
  ProductInMicros,
  TermsInMicros,
  TermsVersionInMicros,
} from "../domain/billing/contract.js";
import type { AmendedTerms } from "../domain/contracts/amendments.js";
import type { AmendedDealTerms } from "../domain/contracts/deal-terms.js";
import type { SeatChange } from "../domain/contracts/seats.js";
import { DEFAULT_CURRENCY } from "../domain/money/currency.js";

// A contract as the repository stores it (dates as dates, a commitment's units as the decimal the API took) and as
// the domain reads it: the shapes of the stored document, and the conversions between them, both ways.

/**
 * Money is stored as integer micro-units under a `…Micros` name, as the domain holds it; a commitment's `units` are
 * stored as the decimal the API took (the shape contracts were first stored in).
 */
const storeCommitment = ({ unitsMicros, ...rest }: CommitmentInMicros) => ({ units: fromMicros(unitsMicros), ...rest });
type StoredCommitment = ReturnType<typeof storeCommitment>;
const loadCommitment = ({ units, ...rest }: StoredCommitment): CommitmentInMicros => ({
  unitsMicros: toMicros(units),
  ...rest,
});

const storeProduct = ({ commitment, ...rest }: ProductInMicros) => ({
  ...rest,
  ...(commitment && { commitment: storeCommitment(commitment) }),
});
type StoredProduct = ReturnType<typeof storeProduct>;

const loadProduct = ({ commitment, ...rest }: StoredProduct): ProductInMicros => ({
  ...rest,
  ...(commitment && { commitment: loadCommitment(commitment) }),
});

const storeProductGroup = ({ products, commitment, ...rest }: ProductGroupInMicros) => ({
  ...rest,
  products: products.map(storeProduct),
  ...(commitment && { commitment: storeCommitment(commitment) }),
});
type StoredProductGroup = ReturnType<typeof storeProductGroup>;

const loadProductGroup = ({ products, commitment, ...rest }: StoredProductGroup): ProductGroupInMicros => ({
  ...rest,
  products: products.map(loadProduct),
  ...(commitment && { commitment: loadCommitment(commitment) }),
});

const storeOverride = ({ commitment, ...rest }: OverrideInMicros) => ({
  ...rest,
  ...(commitment && { commitment: storeCommitment(commitment) }),
});
type StoredOverride = ReturnType<typeof storeOverride>;
const loadOverride = ({ commitment, ...rest }: StoredOverride): OverrideInMicros => ({
  ...rest,
  ...(commitment && { commitment: loadCommitment(commitment) }),
});

export const storeTerms = ({ products, productGroups }: TermsInMicros) => ({
  ...(products && { products: products.map(storeProduct) }),
  ...(productGroups && { productGroups: productGroups.map(storeProductGroup) }),
});
export type StoredTerms = ReturnType<typeof storeTerms>;
export const loadTerms = ({ products, productGroups }: StoredTerms): TermsInMicros => ({
  ...(products && { products: products.map(loadProduct) }),
  ...(productGroups && { productGroups: productGroups.map(loadProductGroup) }),
});

/** An earlier version of the terms, as the contract keeps it (see TermsVersionInMicros). */
type StoredTermsVersion = StoredTerms & { version: number; effectiveFrom?: Date };

const storeTermsVersion = ({ version, effectiveFrom, ...terms }: TermsVersionInMicros): StoredTermsVersion => ({
  version,
  ...(effectiveFrom && { effectiveFrom: new Date(effectiveFrom) }),
  ...storeTerms(terms),
});
const loadTermsVersion = ({ version, effectiveFrom, ...terms }: StoredTermsVersion): TermsVersionInMicros => ({
  version,
  ...(effectiveFrom && { effectiveFrom: iso(effectiveFrom) }),
  ...loadTerms(terms),
});

export type ContractDoc = Omit<
  ContractCreate,
  | "startDate"
  | "endDate"
  | "signatureDate"
  | "products"
  | "productGroups"
  | "customFields"
  | "planId"
  | "planVersion"
  | "overrides"
  | "minimumCommitment"
  | "discounts"
> &
  ContractTermsInMicros & {
    /** The plan version the current terms follow; null (or absent) on a custom contract. */
    plan?: ContractPlan | null;
    planOverrides?: StoredOverride[] | null;
    _id: ObjectId;
    accountId: string;
    startDate: Date;
    endDate?: Date;
    signatureDate?: Date;
    /** A test account's contract: its clock's time when stored (ContractLifeFields' enteredAt). */
    enteredAt?: Date;
    products?: StoredProduct[];
    productGroups?: StoredProductGroup[];
    customFields?: StoredCustomField[];
    createdAt: Date;
    updatedAt: Date;
    /** Stored as null until deletion, so live contracts match `deletedAt: null` on every engine. */
    deletedAt: Date | null;
    /** Changes of status and renewals recorded (contractTransitions): the next one is `<id>:<version + 1>`. */
    version?: number;
    /** The version of the terms (`products`, `productGroups`); absent: 1, as created. */
    termsVersion?: number;
    termsEffectiveFrom?: Date;
    earlierTerms?: StoredTermsVersion[];
    renewals?: number;
    terminationAt?: Date;
    terminationReason?: string;
    inactivePeriods?: { from: Date; to?: Date }[];
    /** The seat changes of its PER_SEAT products, in the order entered. */
    seatChanges?: StoredSeatChange[];
  };

/** A seat change as stored: its days as dates. */
type StoredSeatChange = Omit<SeatChange, "effectiveFrom" | "enteredAt"> & { effectiveFrom: Date; enteredAt: Date };
const storeSeatChange = ({ effectiveFrom, enteredAt, ...rest }: SeatChange): StoredSeatChange => ({
  ...rest,
  effectiveFrom: new Date(effectiveFrom),
  enteredAt: new Date(enteredAt),
});
const loadSeatChange = ({ effectiveFrom, enteredAt, ...rest }: StoredSeatChange): SeatChange => ({
  ...rest,
  effectiveFrom: iso(effectiveFrom),
  enteredAt: iso(enteredAt),
});

/** What a change of a contract's lifecycle sets on it. */
export interface LifecycleState {
  status: ContractStatus;
  endDate?: string;
  renewals: number;
  terminationAt?: string;
  terminationReason?: string;
  inactivePeriods?: { from: string; to?: string }[];
}

export const toContract = ({
  _id,
  accountId: _account,
  startDate,
  endDate,
  signatureDate,
  products,
  productGroups,
  customFields,
  createdAt,
  updatedAt,
  deletedAt,
  enteredAt,
  version: _version,
  termsVersion,
  termsEffectiveFrom,
  earlierTerms,
  renewals,
  terminationAt,
  inactivePeriods,
  currency,
  plan,
  planOverrides,
  seatChanges,
  minimumCommitment,
  discounts,
  ...fields
}: ContractDoc): ContractInMicros => ({
  id: _id.toHexString(),
  ...fields,
  // An amendment removing them stores null and [] (see effectOf).
  ...(minimumCommitment && { minimumCommitment }),
  ...(discounts && discounts.length > 0 && { discounts }),
  ...(plan && { plan }),
  ...(planOverrides && { planOverrides: planOverrides.map(loadOverride) }),
  // Contracts stored before currencies were USD.
  currency: currency ?? DEFAULT_CURRENCY,
  renewals: renewals ?? 0,
  version: termsVersion ?? 1,
  ...(termsEffectiveFrom && { termsEffectiveFrom: iso(termsEffectiveFrom) }),
  ...(earlierTerms && { earlierTerms: earlierTerms.map(loadTermsVersion) }),
  ...(terminationAt && { terminationAt: iso(terminationAt) }),
  ...(inactivePeriods && {
    inactivePeriods: inactivePeriods.map(({ from, to }) => ({ from: iso(from), ...(to && { to: iso(to) }) })),
  }),
  startDate: iso(startDate),
  ...(endDate && { endDate: iso(endDate) }),
  ...(signatureDate && { signatureDate: iso(signatureDate) }),
  ...(products && { products: products.map(loadProduct) }),
  ...(productGroups && { productGroups: productGroups.map(loadProductGroup) }),
  ...(customFields && { customFields: loadCustomFields(customFields) }),
  createdAt: iso(createdAt),
  updatedAt: iso(updatedAt),
  ...(deletedAt && { deletedAt: iso(deletedAt) }),
  ...(enteredAt && { enteredAt: iso(enteredAt) }),
  ...(seatChanges && { seatChanges: seatChanges.map(loadSeatChange) }),
});

/** A new contract's document, stored `now`. */
export const newContractDoc = (
  accountId: string,
  {
    startDate,
    endDate,
    signatureDate,
    customerId,
    products,
    productGroups,
    customFields,
    planOverrides,
    ...fields
  }: ContractCreateInMicros,
  now: Date,
): ContractDoc => ({
  _id: new ObjectId(),
  accountId,
  ...fields,
  // The customer's canonical id (lowercase hex), so contracts join to their customer by plain equality.
  customerId: canonicalId(customerId),
  startDate: new Date(startDate),
  ...(endDate && { endDate: new Date(endDate) }),
  ...(signatureDate && { signatureDate: new Date(signatureDate) }),
  ...(products && { products: products.map(storeProduct) }),
  ...(productGroups && { productGroups: productGroups.map(storeProductGroup) }),
  ...(customFields && { customFields: storeCustomFields(customFields) }),
  ...(planOverrides && { planOverrides: planOverrides.map(storeOverride) }),
  createdAt: now,
  updatedAt: now,
  deletedAt: null,
});

/**
 * What a change sets on the contract: its lifecycle state, the fields amended, the terms of an amendment, its deal
 * terms' (a removed minimum commitment is stored null, removed discounts [], both read as absent).
 */
export function effectOf(
  { endDate, terminationAt, inactivePeriods, ...rest }: LifecycleState,
  { customFields, ...amended }: ContractAmendment = {},
  terms?: AmendedTerms,
  seatChanges?: SeatChange[],
  deal?: AmendedDealTerms,
): Document {
  return {
    ...deal,
    ...amended,
    ...(customFields && { customFields: storeCustomFields(customFields) }),
    ...rest,
    ...(endDate && { endDate: new Date(endDate) }),
    ...(terminationAt && { terminationAt: new Date(terminationAt) }),
    ...(inactivePeriods && {
      inactivePeriods: inactivePeriods.map(({ from, to }) => ({
        from: new Date(from),
        ...(to && { to: new Date(to) }),
      })),
    }),
    ...(terms && {
      ...storeTerms(terms),
      termsVersion: terms.version,
      termsEffectiveFrom: new Date(terms.termsEffectiveFrom),
      earlierTerms: terms.earlierTerms.map(storeTermsVersion),
      ...(terms.plan !== undefined && { plan: terms.plan }),
      ...(terms.planOverrides !== undefined && { planOverrides: terms.planOverrides?.map(storeOverride) ?? null }),
    }),
    ...(seatChanges && { seatChanges: seatChanges.map(storeSeatChange) }),
  };
}
