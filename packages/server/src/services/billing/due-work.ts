import { setTimeout } from "node:timers/promises";
import {
  CLAIM_LEASE_MS,
  claimStep,
  HOLDERS_WAIT_MAX_MS,
  type Horizons,
  heldByAnother,
  holdBack,
  horizonOf,
  nextClaimWait,
  noHorizons,
} from "../../domain/billing/claims.js";
import type { BillingClaimDoc } from "../../repositories/billing-claims.js";
import type { ScheduleDoc } from "../../repositories/billing-runs.js";
import type { BillingPass } from "./pass.js";

/** The due contracts one batch of a pass works on (issue 30), and where its work stops. */
export interface DueWork {
  /**
   * The schedules the batch bills, as they stand once claimed, longest due first: those it won, and those the pass
   * won in an earlier batch that are still due (their invoices held back then by a contract another call held).
   */
  claimed: ScheduleDoc[];
  /** How many of `claimed` this batch won (the pass's limits count these). */
  won: number;
  /** The due contracts the pass does not work on, which hold back invoices ready after them. */
  horizons: Horizons;
  /** Whether due contracts were left past the batch's limit (or not read): another batch or call finds work. */
  leftOver: boolean;
  /**
   * Due contracts another live call holds for work due by this pass's `at`: still this pass's to see done, so it
   * waits for them (within its budget) or answers hasMore: they are due until their holder has billed them.
   */
  held: number;
  /** The contracts of `held` that another call holds (the others are their customers' due contracts), by id. */
  heldIds: string[];
}

function horizonMoved(pass: BillingPass, horizons: Horizons, schedule: ScheduleDoc) {
  if (schedule.customerId === undefined) return true;
  return horizonOf(horizons, schedule.customerId)?.getTime() !== pass.plannedUnder.get(schedule._id.toHexString());
}

/**
 * Claims up to `wanted` due contracts, longest due first, skipping those another live call holds and retaking those
 * whose holder died or has billed them (claimStep); reads at most `duePagesPerCall` pages of schedules. Then re-reads
 * the schedules to bill: a contract another call finished between the read and the claim is no longer due.
 */
export async function claimDueWork(pass: BillingPass, wanted: number): Promise<DueWork> {
  const { repositories, accountId, at, limits, holder } = pass;
  const { billingRuns, billingClaims } = repositories;
  const pageSize = limits.invoicesPerCall + 1;
  // The clock of this batch, not of the call: the steps before it may have taken a while.
  const now = new Date();
  const expiresAt = new Date(now.getTime() + CLAIM_LEASE_MS);
  const toBill: ScheduleDoc[] = [];
  const mine: ScheduleDoc[] = [];
  let won = 0;
  let held = 0;
  const heldIds: string[] = [];
  /** Customers with a due contract this batch does not work on (another call holds it, or past `wanted`). */
  const heldCustomers = new Set<string>();
  const horizons = noHorizons();
  let unread: ScheduleDoc | undefined;
  let leftOver = false;
  const holdBackCustomer = (schedule: ScheduleDoc) => {
    if (schedule.customerId !== undefined) heldCustomers.add(schedule.customerId);
    holdBack(horizons, schedule);
  };
  /**
   * The account's claims, read before the first page (undefined: too many; a call's first batch takes those its look
   * for drafts read just before): they answer for every contract of its pages, and the first page is sized past them.
   * Read after the page, they could miss the claim of a contract its holder billed and released in between: the batch
   * would claim it, find it no longer due, and bill that many fewer, the contracts after it left to another call's
   * small batch (four loops over one month-end: 91 and 9).
   */
  let known = await pass.accountClaims();
  // The schedules a batch reads at most: duePagesPerCall pages, and as many as the account's claims (at most 1,000).
  // A page is as large as the claims it may pass over (other calls' due contracts come first in due order) and what
  // is still wanted, so that it is the last.
  const readLimit = () => limits.duePagesPerCall * pageSize + (known?.size ?? 0);
  let offset = 0;
  for (let page = 0; page < limits.duePagesPerCall && offset < readLimit() && won < wanted; page += 1) {
    const size = Math.min(readLimit() - offset, known ? known.size + (wanted - won) + 1 : pageSize);
    const due = await billingRuns.due(accountId, at, size, offset);
    offset += due.length;
    const standing = known ?? (await billingClaims.standing(due.map(({ _id }) => _id.toHexString())));
    /** The page's contracts this batch asks for, claimed together once the page is read. */
    const wantedOnPage: { schedule: ScheduleDoc; claim: BillingClaimDoc; stale?: BillingClaimDoc }[] = [];
    for (const schedule of due) {
      const contractId = schedule._id.toHexString();
      const claim = standing.get(contractId);
      const step = claimStep(claim, { holder, now, nextDueAt: schedule.nextDueAt });
      if (step === "mine") {
        mine.push(schedule);
        continue;
      }
      // A customer's contracts are billed by one call: split, each call's invoices would wait for the other's.
      const customerHeld = schedule.customerId !== undefined && heldCustomers.has(schedule.customerId);
      if (step === "held") heldIds.push(contractId);
      if (step === "held" || customerHeld) held += 1;
      else if (won + wantedOnPage.length >= wanted) leftOver = true;
      else {
        pass.claiming = true;
        const stale = step === "retake" ? claim : undefined;
        wantedOnPage.push({ schedule, claim: { _id: contractId, accountId, holder, at, expiresAt }, stale });
        continue;
      }
      holdBackCustomer(schedule);
    }
    const taken = await billingClaims.takeMany(wantedOnPage);
    let lost = false;
    for (const { schedule, claim } of wantedOnPage) {
      if (taken.has(claim._id)) {
        toBill.push(schedule);
        won += 1;
      } else {
        // Lost to a call that claimed it since the read: held by that call.
        held += 1;
        heldIds.push(claim._id);
        holdBackCustomer(schedule);
        lost = true;
      }
    }
    // Contracts past a full page are not read: due from its last schedule on, customer unknown.
    unread = due.length === size ? due.at(-1) : undefined;
    if (!unread) break;
    // Calls that claimed since the account's claims were read (as many at once as loops start together) claimed
    // further on too: read them again, so that the next page is sized past them and asks for none of theirs.
    if (lost && known && won < wanted) known = await pass.accountClaims();
  }
  if (unread) {
    holdBack(horizons, { nextDueAt: unread.nextDueAt });
    leftOver = true;
  }
  // Still due after an earlier batch of this pass: worth planning again only if its customer's horizon moved.
  toBill.push(...mine.filter((schedule) => horizonMoved(pass, horizons, schedule)));
  const current = new Map(
    (await billingRuns.current(toBill.map(({ _id }) => _id))).map((schedule) => [schedule._id.toHexString(), schedule]),
  );
  const claimed = toBill.flatMap((schedule) => {
    const standing = current.get(schedule._id.toHexString());
    return standing && standing.nextDueAt <= at ? [standing] : [];
  });
  return { claimed, won, horizons, leftOver, held, heldIds };
}

/** Claims looked at by one read while waiting for their holders: the index proof's bound on an `$in`. */
const MAX_WATCHED = 200;

/**
 * Waits for other calls to release claims (`heldIds`: claims due-work found held) for at most `withinMs`: until all of
 * them are released, looking at those claims alone between waits (one read a look, nextClaimWait apart: 100, 200, 400,
 * 800, 1,600, 3,200 ms, the last look at the end of `withinMs`), where a look at the due work itself reads the due page
 * and its claims. Whether they were released in time. A holder releases its claims when its call ends, its invoices
 * made or its budget spent.
 */
export async function untilReleased(pass: BillingPass, heldIds: string[], withinMs: number) {
  const { repositories, holder } = pass;
  const watched = heldIds.slice(0, MAX_WATCHED);
  if (watched.length === 0) return true;
  const until = Date.now() + withinMs;
  for (let waitMs = nextClaimWait(); ; waitMs = nextClaimWait(waitMs, HOLDERS_WAIT_MAX_MS)) {
    const left = until - Date.now();
    if (left < MIN_WAIT_MS) return false;
    await setTimeout(Math.min(waitMs, left));
    const standing = await repositories.billingClaims.standing(watched);
    const now = new Date();
    const stillHeld = watched.filter((id) => heldByAnother(standing.get(id), { holder, now })).length;
    if (stillHeld === 0) return true;
  }
}

/** A wait shorter than this before a deadline is not worth its look. */
const MIN_WAIT_MS = 50;
