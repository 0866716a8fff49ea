import { type ErrorIssue, GRANT_PRIORITY } from "@billing/shared";
import { DEFAULT_CURRENCY, floorToMinorUnit } from "./money/currency.js";
import { asMicros, type Micros, sumMicros } from "./money/micros.js";

/** A grant with money left, as the ledger holds it after each entry. Amounts in micro-units. */
export interface OpenGrant {
  /** The id of its `Grant` entry. */
  grantId: string;
  /** The place of its `Grant` entry in the ledger: of two grants, the older has the smaller. */
  seq: number;
  amountMicros: Micros;
  /** Always > 0: a grant with nothing left leaves the ledger's set of open grants. */
  remainingMicros: Micros;
  /** It pays invoices issued at or after this instant… */
  effectiveAt: Date;
  /** …and before this one, when what is left of it expires. Undefined: never. */
  expiresAt: Date | undefined;
  /** 0..100, lower burns first. */
  priority: number;
  /** ISO 4217: the grant pays only invoices of this currency. */
  currency: string;
}

/** Micro-units taken from one grant. */
export interface Burn {
  grantId: string;
  micros: Micros;
}

const expiryOf = (grant: OpenGrant) => grant.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;

/** Micro-units the grants hold in one currency: a customer's balance in it. */
export const balanceIn = (grants: readonly OpenGrant[], currency: string): Micros =>
  sumMicros(grants.filter((grant) => grant.currency === currency).map((grant) => grant.remainingMicros));

/**
 * A customer's balance per currency: `shownFirst` (the account's default) always, then every other currency a grant
 * holds money in, A to Z.
 */
export function balancesByCurrency(grants: readonly OpenGrant[], shownFirst: string) {
  const others = [...new Set(grants.map((grant) => grant.currency))].filter((code) => code !== shownFirst).sort();
  return [shownFirst, ...others].map((currency) => ({ currency, micros: balanceIn(grants, currency) }));
}

/** Burn order: the lower priority first, then the earlier expiry (never expiring last), then the older grant. */
export function byBurnOrder(a: OpenGrant, b: OpenGrant): number {
  if (a.priority !== b.priority) return a.priority - b.priority;
  if (expiryOf(a) !== expiryOf(b)) return expiryOf(a) < expiryOf(b) ? -1 : 1;
  return a.seq - b.seq;
}

export const inBurnOrder = (grants: readonly OpenGrant[]): OpenGrant[] => [...grants].sort(byBurnOrder);

/** Whether the grant has expired at `at`: its expiry is at or before it (the expiry instant is no longer valid). */
export const isExpiredAt = (grant: OpenGrant, at: Date) => expiryOf(grant) <= at.getTime();

/** An invoice credits may pay: when it is issued, and its currency. */
export interface InvoiceToPay {
  issuedAt: Date;
  currency: string;
}

/** Whether the grant may pay the invoice: of its currency, effective when it is issued, and not expired then. */
export const paysInvoice = (grant: OpenGrant, { issuedAt, currency }: InvoiceToPay) =>
  grant.currency === currency && grant.effectiveAt.getTime() <= issuedAt.getTime() && !isExpiredAt(grant, issuedAt);

/** What credits can pay of the invoice: the whole minor units of what its eligible grants hold. */
export function payableMicros(grants: readonly OpenGrant[], invoice: InvoiceToPay): Micros {
  const eligible = grants.filter((grant) => paysInvoice(grant, invoice));
  return floorToMinorUnit(sumMicros(eligible.map((grant) => grant.remainingMicros)), invoice.currency);
}

/**
 * How credits pay up to `maxMicros` of the invoice: whole minor units in all (a rest below one stays on the grants),
 * taken from the eligible grants (those of its currency) in burn order, each emptied before the next is touched.
 */
export function burnPlan(grants: readonly OpenGrant[], invoice: InvoiceToPay, maxMicros: Micros): Burn[] {
  let left: number = Math.min(maxMicros, payableMicros(grants, invoice));
  const burns: Burn[] = [];
  for (const grant of inBurnOrder(grants.filter((candidate) => paysInvoice(candidate, invoice)))) {
    if (left <= 0) break;
    const micros = Math.min(left, grant.remainingMicros);
    burns.push({ grantId: grant.grantId, micros: asMicros(micros) });
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
  currency: string;
}

/**
 * The terms of a grant made at `now`: effective from `now`, never expiring and of default priority unless given
 * (its currency is given: the caller's or the account's default).
 */
export const grantTermsOf = (
  terms: {
    effectiveAt?: string | undefined;
    expiresAt?: string | undefined;
    priority?: number | undefined;
    currency: string;
  },
  now: Date,
): GrantTerms => ({
  currency: terms.currency,
  effectiveAt: terms.effectiveAt ? new Date(terms.effectiveAt) : now,
  expiresAt: terms.expiresAt ? new Date(terms.expiresAt) : undefined,
  priority: terms.priority ?? GRANT_PRIORITY.default,
});

/**
 * The terms of a grant stored before grants had terms (and currencies), each as its ledger was read then: effective
 * always, never expiring, of default priority, in USD.
 */
const LEGACY_GRANT_TERMS: GrantTerms = {
  effectiveAt: new Date(0),
  expiresAt: undefined,
  priority: GRANT_PRIORITY.default,
  currency: DEFAULT_CURRENCY,
};

/** A grant as its `Grant` entry stored it: the terms it lacks were not kept yet when it was written. */
export interface StoredGrant {
  grantId: string;
  seq: number;
  amountMicros: Micros;
  effectiveAt?: Date | undefined;
  expiresAt?: Date | undefined;
  priority?: number | undefined;
  currency?: string | undefined;
}

/** The grant a `Grant` entry made, the terms it lacks those of a grant from before terms (LEGACY_GRANT_TERMS). */
export const grantOfEntry = ({
  grantId,
  seq,
  amountMicros,
  ...terms
}: StoredGrant): Omit<OpenGrant, "remainingMicros"> => ({
  grantId,
  seq,
  amountMicros,
  effectiveAt: terms.effectiveAt ?? LEGACY_GRANT_TERMS.effectiveAt,
  expiresAt: terms.expiresAt,
  priority: terms.priority ?? LEGACY_GRANT_TERMS.priority,
  currency: terms.currency ?? LEGACY_GRANT_TERMS.currency,
});
