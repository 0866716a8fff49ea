import type { ContractInMicros, ContractTermsInMicros, DealTermsVersion } from "../billing/contract.js";
import { conflict } from "../errors.js";

/**
 * A contract's own deal terms (`minimumCommitment`, `discounts`) change by amendment from a UTC day, as its products
 * do (docs/decisions.md, "Deal terms"): an invoice is priced by those in force on its cycle's first day.
 */

/** A contract keeps at most this many earlier deal terms (one per amendment of them). */
export const MAX_DEAL_TERMS_VERSIONS = 100;

/** The deal terms alone (nothing else of the contract). */
const dealTermsOf = ({ minimumCommitment, discounts }: ContractTermsInMicros): ContractTermsInMicros => ({
  ...(minimumCommitment && { minimumCommitment }),
  ...(discounts && discounts.length > 0 && { discounts }),
});

/** The contract with the deal terms in force at `instant` in place of its current ones (itself when they are). */
export function dealTermsAt<C extends ContractInMicros>(contract: C, instant: Date): C {
  const earlier = contract.earlierDealTerms ?? [];
  const version = earlier.find(({ until }) => instant.getTime() < Date.parse(until));
  if (!version) return contract;
  const { minimumCommitment: _minimum, discounts: _discounts, ...rest } = contract;
  return { ...rest, ...dealTermsOf(version) } as C;
}

/** An amendment of the deal terms: each field given replaces the current one (`null`/`[]` removes it). */
export interface DealTermsChange {
  minimumCommitment?: ContractTermsInMicros["minimumCommitment"] | null;
  discounts?: ContractTermsInMicros["discounts"];
}

/** What an amendment of the deal terms sets on the contract: the new terms (null: removed) and the earlier ones. */
export interface AmendedDealTerms {
  minimumCommitment: ContractTermsInMicros["minimumCommitment"] | null;
  discounts: NonNullable<ContractTermsInMicros["discounts"]>;
  earlierDealTerms: DealTermsVersion[];
}

/**
 * The deal terms after an amendment from the UTC day `from`: the current ones are kept for the days before it, the
 * given fields replace them from it. 409 naming `effectiveFrom` when `from` is before the last amendment's day (they
 * follow each other, as versions of the products do), or when MAX_DEAL_TERMS_VERSIONS are kept already.
 */
export function amendDealTerms(current: ContractInMicros, given: DealTermsChange, from: Date): AmendedDealTerms {
  const earlier = current.earlierDealTerms ?? [];
  const since = earlier.at(-1)?.until;
  if (since && Date.parse(since) > from.getTime()) {
    throw conflict(`The contract's deal terms were amended from ${since}: a new amendment can start from that day on`, [
      { path: "effectiveFrom", message: `must not be before ${since}` },
    ]);
  }
  if (earlier.length >= MAX_DEAL_TERMS_VERSIONS) {
    throw conflict(`The contract's deal terms were amended ${MAX_DEAL_TERMS_VERSIONS} times, the most they may be`, [
      { path: "effectiveFrom", message: `at most ${MAX_DEAL_TERMS_VERSIONS} amendments of the deal terms` },
    ]);
  }
  const kept = { ...dealTermsOf(current), until: from.toISOString() };
  // An amendment from the same day as the last one replaces it: the terms before that day stay as they were.
  const history = since === kept.until ? earlier : [...earlier, kept];
  return {
    minimumCommitment:
      given.minimumCommitment === undefined ? (current.minimumCommitment ?? null) : given.minimumCommitment,
    discounts: given.discounts ?? current.discounts ?? [],
    earlierDealTerms: history,
  };
}
