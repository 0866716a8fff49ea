import { type ErrorIssue, GRANT_PRIORITY } from "@billing/shared";
import { floorToCents } from "./billing/amounts.js";

/** A grant with money left, as the ledger holds it after each entry. Amounts in micro-units. */
export interface OpenGrant {
  /** The id of its `Grant` entry. */
  grantId: string;
  /** The place of its `Grant` entry in the ledger: of two grants, the older has the smaller. */
  seq: number;
  amountMicros: number;
  /** Always > 0: a grant with nothing left leaves the ledger's set of open grants. */
  remainingMicros: number;
  /** It pays invoices issued at or after this instant… */
  effectiveAt: Date;
  /** …and before this one, when what is left of it expires. Undefined: never. */
  expiresAt: Date | undefined;
  /** 0..100, lower burns first. */
  priority: number;
}

/** Micro-units taken from one grant. */
export interface Burn {
  grantId: string;
  micros: number;
}

const expiryOf = (grant: OpenGrant) => grant.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;

/** Burn order: the lower priority first, then the earlier expiry (never expiring last), then the older grant. */
export function byBurnOrder(a: OpenGrant, b: OpenGrant): number {
  if (a.priority !== b.priority) return a.priority - b.priority;
  if (expiryOf(a) !== expiryOf(b)) return expiryOf(a) < expiryOf(b) ? -1 : 1;
  return a.seq - b.seq;
}

export const inBurnOrder = (grants: readonly OpenGrant[]): OpenGrant[] => [...grants].sort(byBurnOrder);

/** Whether the grant has expired at `at`: its expiry is at or before it (the expiry instant is no longer valid). */
export const isExpiredAt = (grant: OpenGrant, at: Date) => expiryOf(grant) <= at.getTime();

/** Whether the grant may pay an invoice issued at `issuedAt`: effective by then, and not expired then. */
export const paysInvoiceIssuedAt = (grant: OpenGrant, issuedAt: Date) =>
  grant.effectiveAt.getTime() <= issuedAt.getTime() && !isExpiredAt(grant, issuedAt);

/** What credits can pay of an invoice issued at `issuedAt`: the whole cents of what its eligible grants hold. */
export function payableMicros(grants: readonly OpenGrant[], issuedAt: Date): number {
  const eligible = grants.filter((grant) => paysInvoiceIssuedAt(grant, issuedAt));
  return floorToCents(eligible.reduce((sum, grant) => sum + grant.remainingMicros, 0));
}

/**
 * How credits pay up to `maxMicros` of an invoice issued at `issuedAt`: whole cents in all (a sub-cent rest stays
 * on the grants), taken from the eligible grants in burn order, each emptied before the next is touched.
 */
export function burnPlan(grants: readonly OpenGrant[], issuedAt: Date, maxMicros: number): Burn[] {
  let left = Math.min(maxMicros, payableMicros(grants, issuedAt));
  const burns: Burn[] = [];
  for (const grant of inBurnOrder(grants.filter((candidate) => paysInvoiceIssuedAt(candidate, issuedAt)))) {
    if (left <= 0) break;
    const micros = Math.min(left, grant.remainingMicros);
    burns.push({ grantId: grant.grantId, micros });
    left -= micros;
  }
  return burns;
}

/** The grants expired at `now`, the earliest expiry first (then the older grant): the order of their expirations. */
export const dueExpirations = (grants: readonly OpenGrant[], now: Date): OpenGrant[] =>
  grants.filter((grant) => isExpiredAt(grant, now)).sort((a, b) => expiryOf(a) - expiryOf(b) || a.seq - b.seq);

/**
 * Rules of a grant's dates that depend on the clock or on each other (the schema checks each alone): `expiresAt`
 * after now, and after `effectiveAt` (a grant must be able to pay something). Empty when the terms are valid.
 */
export function grantTermIssues(
  terms: { effectiveAt?: string | undefined; expiresAt?: string | undefined },
  now: Date,
): ErrorIssue[] {
  if (terms.expiresAt === undefined) return [];
  const expiresAt = Date.parse(terms.expiresAt);
  const effectiveAt = terms.effectiveAt === undefined ? now.getTime() : Date.parse(terms.effectiveAt);
  if (expiresAt <= now.getTime()) return [{ path: "expiresAt", message: `must be after now (${now.toISOString()})` }];
  if (expiresAt <= effectiveAt) return [{ path: "expiresAt", message: "must be after effectiveAt" }];
  return [];
}

/** A grant's terms, those a caller may leave out filled in. */
export interface GrantTerms {
  effectiveAt: Date;
  expiresAt: Date | undefined;
  priority: number;
}

/** The terms of a grant made at `now`: effective from `now`, never expiring and of default priority unless given. */
export const grantTermsOf = (
  terms: { effectiveAt?: string | undefined; expiresAt?: string | undefined; priority?: number | undefined },
  now: Date,
): GrantTerms => ({
  effectiveAt: terms.effectiveAt ? new Date(terms.effectiveAt) : now,
  expiresAt: terms.expiresAt ? new Date(terms.expiresAt) : undefined,
  priority: terms.priority ?? GRANT_PRIORITY.default,
});
