import { CLAIM_LEASE_MS, claimStep, type Horizons, holdBack, noHorizons } from "../../domain/billing/claims.js";
import type { ScheduleDoc } from "../../repositories/billing-runs.js";
import type { BillingPass } from "./pass.js";

/** The due contracts one pass works on (issue 30), and where its work stops. */
export interface DueWork {
  /** The schedules the pass holds, as they stand once claimed, longest due first. */
  claimed: ScheduleDoc[];
  /** The due contracts the pass does not work on, which hold back invoices ready after them. */
  horizons: Horizons;
  /**
   * Whether due contracts were left past the pass's limit (or not read): calling again finds work. Contracts another
   * live call holds are that call's to finish (or to retake once its lease has run out), not a reason to call again.
   */
  leftOver: boolean;
}

/**
 * Claims up to `wanted` due contracts, longest due first, skipping those another live call holds and retaking those
 * whose holder's lease ran out; reads at most `duePagesPerCall` pages of schedules. A contract the pass claimed in
 * an earlier batch and that is still due holds back its customer like any other. Then re-reads the claimed schedules:
 * a contract another call finished between the read and the claim is no longer due.
 */
export async function claimDueWork(pass: BillingPass, wanted: number): Promise<DueWork> {
  const { repositories, accountId, at, limits, holder } = pass;
  const { billingRuns, billingClaims } = repositories;
  const pageSize = limits.invoicesPerCall + 1;
  // The clock of this batch, not of the call: the steps before it may have taken a while.
  const now = new Date();
  const expiresAt = new Date(now.getTime() + CLAIM_LEASE_MS);
  const mine: ScheduleDoc[] = [];
  const horizons = noHorizons();
  let unread: ScheduleDoc | undefined;
  let leftOver = false;
  for (let page = 0; page < limits.duePagesPerCall && mine.length < wanted; page += 1) {
    const due = await billingRuns.due(accountId, at, pageSize, page * pageSize);
    const standing = await billingClaims.standing(due.map(({ _id }) => _id));
    for (const schedule of due) {
      const claim = standing.get(schedule._id.toHexString());
      const step = claimStep(claim, holder, now);
      let won = false;
      if (step === "mine") {
        // Still due after an earlier batch of this pass: its plan said whether more remains.
      } else if (mine.length >= wanted) leftOver = true;
      else if (step !== "held") {
        pass.claiming = true;
        won = await billingClaims.take(
          { _id: schedule._id, accountId, holder, expiresAt },
          step === "retake" ? claim : undefined,
        );
      }
      if (won) mine.push(schedule);
      else holdBack(horizons, schedule);
    }
    // Contracts past a full page are not read: due from its last schedule on, customer unknown.
    unread = due.length === pageSize ? due.at(-1) : undefined;
    if (!unread) break;
  }
  if (unread) {
    holdBack(horizons, { nextDueAt: unread.nextDueAt });
    leftOver = true;
  }
  const current = new Map(
    (await billingRuns.current(mine.map(({ _id }) => _id))).map((schedule) => [schedule._id.toHexString(), schedule]),
  );
  const claimed = mine.flatMap((schedule) => {
    const standing = current.get(schedule._id.toHexString());
    return standing && standing.nextDueAt <= at ? [standing] : [];
  });
  return { claimed, horizons, leftOver };
}
