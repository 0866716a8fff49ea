/**
 * How long a billing call holds a contract it claimed (issue 30): far longer than a call's work (its time budget is
 * 3 s), so a live call never loses a contract to another; a call that died gives it up after this.
 */
export const CLAIM_LEASE_MS = 60_000;

/**
 * Between two looks at claims held by other calls, a call with nothing else to claim waits this long at first, twice
 * as long after each look that found nothing to claim, up to CLAIM_WAIT_MAX_MS: each look reads the due page and its
 * claims again, and at a fixed 100 ms two loops over one month-end spent more commands waiting than billing (bench
 * section 13). A holder's batch takes a second or more, so a waiter that starts after it misses little.
 */
export const CLAIM_WAIT_MS = 100;
export const CLAIM_WAIT_MAX_MS = 800;

/**
 * A call whose only work left is other calls' claims waits for all of them to be released, its answer all that is
 * left: its looks back off further (up to 10 s of waiting, holdersWaitMs), since a look costs a read and a release
 * seen a second later costs nothing but that second. Looks 100, 200, 400, 800, 1,600, then 3,200 ms apart: seven looks
 * over 10 s (nine at 1,600 ms), where a holder's batch takes 8–14 s beside three others on the embedded engine (issue
 * 47) and a second or less on MongoDB, whose waiters see releases before the longest gap.
 */
export const HOLDERS_WAIT_MAX_MS = 3_200;

/**
 * The wait before the next look that follows `previousMs` of waiting in a row: 100, 200, 400, 800, 800… ms (up to
 * `maxMs`).
 */
export const nextClaimWait = (previousMs?: number, maxMs = CLAIM_WAIT_MAX_MS): number =>
  previousMs === undefined ? CLAIM_WAIT_MS : Math.min(previousMs * 2, maxMs);

/**
 * How many due contracts a call claims in its next batch: `wanted` (its limits' share), fewer when it cannot bill them
 * in the time it has left at its own pace so far (`msPerInvoice`; undefined before it has billed any: `wanted`), at
 * least one. A batch claimed late and billed in part holds its contracts from other calls, which wait for them, until
 * the call ends. Examples: 20 wanted, 1,000 ms left at 100 ms an invoice → 10; at 40 ms → 20; no pace yet → 20.
 */
export function batchSize(wanted: number, msLeft: number, msPerInvoice: number | undefined): number {
  if (msPerInvoice === undefined || msPerInvoice <= 0) return wanted;
  return Math.max(1, Math.min(wanted, Math.floor(msLeft / msPerInvoice)));
}

/** A claim as the decision needs it. */
export interface StandingClaim {
  holder: string;
  /** The holder's `at`: the claim covers the contract's work due by then. */
  at: Date;
  expiresAt: Date;
}

/**
 * What a call does with a contract due at `nextDueAt` (as its schedule reads), by the claim standing on it: `take` a
 * free one; `retake` one whose lease has run out (its holder died) or whose holder has nothing left due on it (the
 * schedule has moved past the holder's `at`: work due later is not the holder's); skip one `held` by a live call with
 * work due, or one that is already `mine` (met again on a later batch). Examples: a claim expiring at 12:00:00 is
 * held at 11:59:59.999 and retaken at 12:00:00; a claim of a call at Feb 1 on a contract next due Mar 1 is retaken
 * by a call at Mar 1, while one on a contract still due Feb 1 is held.
 */
export function claimStep(
  standing: StandingClaim | undefined,
  { holder, now, nextDueAt }: { holder: string; now: Date; nextDueAt: Date },
): "take" | "retake" | "held" | "mine" {
  if (!standing) return "take";
  if (standing.holder === holder) return "mine";
  if (standing.expiresAt.getTime() <= now.getTime()) return "retake";
  return nextDueAt.getTime() > standing.at.getTime() ? "retake" : "held";
}

/** Whether another live call holds the contract: it stores and finalizes that contract's invoices itself. */
export const heldByAnother = (standing: StandingClaim | undefined, { holder, now }: { holder: string; now: Date }) =>
  standing !== undefined && standing.holder !== holder && standing.expiresAt.getTime() > now.getTime();

/**
 * Where a pass's work stops: a due contract the pass does not work on (held by another call, past its limit, or not
 * read) is due from its schedule on, so the pass makes no invoice of that contract's customer ready later, and credits
 * pay each customer's invoices in ready order however many calls share the work. Credits are per customer: another
 * customer's contract holds nothing back, except one whose customer the pass does not know (`all`).
 */
export interface Horizons {
  byCustomer: Map<string, Date>;
  /** For every customer: contracts not read, and schedules written before they named their customer. */
  all?: Date;
}

export const noHorizons = (): Horizons => ({ byCustomer: new Map() });

const earlier = (a: Date | undefined, b: Date) => (a && a.getTime() <= b.getTime() ? a : b);

/** Records a due contract the pass does not work on. */
export function holdBack(horizons: Horizons, left: { customerId?: string; nextDueAt: Date }) {
  if (left.customerId === undefined) horizons.all = earlier(horizons.all, left.nextDueAt);
  else horizons.byCustomer.set(left.customerId, earlier(horizons.byCustomer.get(left.customerId), left.nextDueAt));
}

/** The moment after which the pass makes none of this customer's invoices; undefined: none. */
export function horizonOf(horizons: Horizons, customerId: string): Date | undefined {
  const own = horizons.byCustomer.get(customerId);
  return own ? earlier(horizons.all, own) : horizons.all;
}
