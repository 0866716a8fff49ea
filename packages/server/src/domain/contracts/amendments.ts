import type { ContractCreditGrant, ContractPlan } from "@billing/shared";
import type { ContractInMicros, OverrideInMicros, TermsInMicros, TermsVersionInMicros } from "../billing/contract.js";
import type { CoveredDays } from "../billing/cycles.js";
import { conflict } from "../errors.js";

/** A contract has a few amendments a term: more versions than this is 409 (every run reads them all). */
export const MAX_TERMS_VERSIONS = 100;

/** One version of a contract's terms and the UTC days it bills: from its `effectiveFrom` up to the next one's. */
export interface TermsWindow {
  version: number;
  terms: TermsInMicros;
  /** `from` undefined: from the contract's first day; `to` undefined: to its end. */
  days: { from: Date | undefined; to: Date | undefined };
}

export const termsOf = ({ products, productGroups }: TermsInMicros): TermsInMicros => ({
  ...(products && { products }),
  ...(productGroups && { productGroups }),
});

/** Every version of the contract's terms, oldest first, each with the days it bills. */
export function termsWindows(contract: ContractInMicros): TermsWindow[] {
  const versions: TermsVersionInMicros[] = [
    ...(contract.earlierTerms ?? []),
    {
      version: contract.version,
      ...termsOf(contract),
      ...(contract.termsEffectiveFrom && { effectiveFrom: contract.termsEffectiveFrom }),
    },
  ];
  return versions.map((version, index) => {
    const next = versions[index + 1]?.effectiveFrom;
    return {
      version: version.version,
      terms: termsOf(version),
      days: {
        from: version.effectiveFrom ? new Date(version.effectiveFrom) : undefined,
        to: next ? new Date(next) : undefined,
      },
    };
  });
}

/** The days both cover: a contract's covered days cut to a version's window. */
export function withinWindow(covered: CoveredDays, window: TermsWindow["days"]): CoveredDays {
  const from = window.from && window.from > covered.from ? window.from : covered.from;
  const to = window.to && (!covered.to || window.to < covered.to) ? window.to : covered.to;
  return { from, to };
}

/** What a terms amendment sets on the contract: the new version, and the current one kept among the earlier ones. */
export interface AmendedTerms extends TermsInMicros {
  version: number;
  termsEffectiveFrom: string;
  earlierTerms: TermsVersionInMicros[];
  /** Set by a move within a plan (the version followed) or a custom amendment of a plan's contract (null: none). */
  plan?: ContractPlan | null;
  planOverrides?: OverrideInMicros[] | null;
}

/**
 * The contract's terms after an amendment from the UTC day `from` (midnight): the terms given replace the current
 * ones (`products`, `productGroups` each; one left out is kept), as version + 1. 409 when that day is before the
 * current version's (versions follow each other) or the contract has MAX_TERMS_VERSIONS already.
 */
export function amendTerms(current: ContractInMicros, given: TermsInMicros, from: Date): AmendedTerms {
  const since = current.termsEffectiveFrom;
  if (since && Date.parse(since) > from.getTime()) {
    throw conflict(
      `Version ${current.version} of the terms bills from ${since}: a new one can start from that day on`,
      [{ path: "effectiveFrom", message: `must not be before ${since}` }],
    );
  }
  if (current.version >= MAX_TERMS_VERSIONS) {
    throw conflict(`The contract has ${MAX_TERMS_VERSIONS} versions of its terms, the most it may have`, [
      { path: "products", message: `at most ${MAX_TERMS_VERSIONS} versions` },
    ]);
  }
  const kept: TermsVersionInMicros = {
    version: current.version,
    ...termsOf(current),
    ...(since && { effectiveFrom: since }),
  };
  return {
    ...termsOf({
      products: given.products ?? current.products,
      productGroups: given.productGroups ?? current.productGroups,
    }),
    version: current.version + 1,
    termsEffectiveFrom: from.toISOString(),
    earlierTerms: [...(current.earlierTerms ?? []), kept],
  };
}

/**
 * New terms that follow a plan version (`plan`), or leave the plan (`plan: null`); resolved by services/plans from the
 * version's terms and the contract's overrides. The contract read first must still follow `from` (409 otherwise).
 */
export interface PlanMove {
  terms: TermsInMicros;
  plan: ContractPlan | null;
  planOverrides: OverrideInMicros[] | null;
  /** The plan and version the move was resolved against. */
  from?: { planId: string; version: number };
  /** The contract's new credit grants (the target version's), when it took its old version's; absent: kept. */
  creditGrants?: ContractCreditGrant[];
}

/** A value written with its object keys sorted: two values of one schema compare equal whatever their key order. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, item) =>
    item && typeof item === "object" && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );

/**
 * The credit grants a plan's contract takes on a move from a version granting `before` to one granting `after`: the
 * new version's when the contract took the old one's (none counts as `[]`), else undefined (its own stay).
 */
export function movedCreditGrants(
  contract: ContractCreditGrant[] | undefined,
  before: ContractCreditGrant[] | undefined,
  after: ContractCreditGrant[] | undefined,
): ContractCreditGrant[] | undefined {
  const own = canonical(contract ?? []);
  if (own !== canonical(before ?? [])) return undefined;
  return own === canonical(after ?? []) ? undefined : (after ?? []);
}
