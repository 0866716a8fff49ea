import type { ContractUpdate } from "@billing/shared";
import { billingNow } from "../../billing-clock.js";
import { BEFORE_EVERYTHING, startOfUtcDay } from "../../domain/billing/cycles.js";
import type { PlanMove } from "../../domain/contracts/amendments.js";
import { assertTransition } from "../../domain/contracts/status.js";
import { conflict } from "../../domain/errors.js";
import { termsInMicros } from "../../presenters/contracts.js";
import type { CallScope } from "../call-scope.js";
import { scheduleContractCredits } from "../credit-recurrences.js";
import { assertNotInvoiced, commit, type InvoicedChecks } from "./commit.js";
import { entryOf, loadForChange, SYSTEM, stateOf } from "./timed-changes.js";
import {
  amendedDealTerms,
  amendedTerms,
  assertCombination,
  checkNewCurrency,
  checkNewEnd,
  checkRenewalOff,
  pausedFrom,
} from "./update-checks.js";
/**
 * Pauses (Inactive) or resumes (Active) a contract from the UTC day `effectiveFrom` (default today), recorded in its
 * inactive periods; amends the fields that do not price; or amends the terms from the UTC day `effectiveFrom` (a new
 * version: see amendTerms), new products leaving the contract's plan, a `planMove` moving it within it; or its deal
 * terms (minimum commitment, discounts) from that day (amendDealTerms). One recorded
 * change, published as `contract.updated`. An empty change answers the contract as it is.
 */
export async function updateContract(
  call: CallScope,
  contractId: string,
  change: ContractUpdate,
  by: string,
  planMove?: PlanMove,
) {
  assertCombination(change, planMove !== undefined);
  // `planVersion` and `dropOverrides` are the plan's service's (services/plans/subscriptions.ts): never stored.
  const { status, effectiveFrom, endDate, products, productGroups, minimumCommitment, discounts, ...asked } = change;
  // A move to a version granting other credits brings them, unless the change gives its own (subscriptions.ts).
  const moveGrants = planMove?.creditGrants;
  const amended = asked.creditGrants === undefined && moveGrants ? { ...asked, creditGrants: moveGrants } : asked;
  const { version, current, due } = await loadForChange(call, contractId);
  const moved = planMove?.from;
  if (moved && (current.plan?.id !== moved.planId || current.plan.version !== moved.version))
    throw conflict("The contract no longer follows that plan version: read it again and retry");
  const invoicedChecks: InvoicedChecks = [];
  const checked = async (check: () => Promise<void>) => {
    invoicedChecks.push(check);
    await check();
  };
  const { currency } = amended;
  if (currency !== undefined) await checked(() => checkNewCurrency(call, current, currency));
  const given = planMove?.terms ?? termsInMicros({ products, productGroups });
  const leavesPlan = !planMove && current.plan !== undefined;
  const termsFields = [
    ...(products !== undefined || planMove ? ["products"] : []),
    ...(productGroups !== undefined || (planMove && given.productGroups) ? ["productGroups"] : []),
    ...(planMove || (leavesPlan && (products || productGroups)) ? ["plan"] : []),
  ];
  const dealFields = [
    ...(minimumCommitment !== undefined ? ["minimumCommitment"] : []),
    ...(discounts !== undefined ? ["discounts"] : []),
  ];
  const amendedFields = [
    ...Object.keys(amended),
    ...(endDate !== undefined ? ["endDate"] : []),
    ...termsFields,
    ...dealFields,
  ].sort();
  if (status === undefined && amendedFields.length === 0) return current;
  const now = billingNow(call.accountId);
  const entries = due.map((timed) => entryOf(timed, SYSTEM));
  let state = stateOf(current);
  let billedFrom: Date | undefined;
  const earliest = (day: Date) => (billedFrom && billedFrom < day ? billedFrom : day);
  if (status !== undefined) {
    assertTransition(current.status, status);
    const day = startOfUtcDay(effectiveFrom ? new Date(effectiveFrom) : now);
    await checked(() => assertNotInvoiced(call, current.id, day, "effectiveFrom"));
    const inactivePeriods = pausedFrom(current, status, day);
    state = { ...state, status, ...(inactivePeriods.length > 0 && { inactivePeriods }) };
    entries.push(entryOf({ at: now, kind: "transition", from: current.status, to: status }, by));
    billedFrom = current.status === "InReview" ? BEFORE_EVERYTHING : day;
  }
  if (amended.autoRenewContract === false)
    await checked(() => checkRenewalOff(call, current, endDate ?? current.endDate));
  if (endDate !== undefined) {
    await checked(() => checkNewEnd(call, current, endDate));
    state = { ...state, endDate };
    const earlierEnd = current.endDate && Date.parse(current.endDate) < Date.parse(endDate) ? current.endDate : endDate;
    billedFrom = earliest(startOfUtcDay(new Date(earlierEnd)));
  }
  const amendedPlan = planMove
    ? { plan: planMove.plan, planOverrides: planMove.planOverrides }
    : leavesPlan && { plan: null, planOverrides: null };
  const terms =
    effectiveFrom !== undefined && termsFields.length > 0
      ? { ...(await amendedTerms(call, current, given, effectiveFrom)), ...amendedPlan }
      : undefined;
  if (terms) {
    const from = new Date(terms.termsEffectiveFrom);
    billedFrom = earliest(from);
    invoicedChecks.push(() => assertNotInvoiced(call, current.id, from, "effectiveFrom"));
  }
  const deal =
    effectiveFrom !== undefined && dealFields.length > 0
      ? await amendedDealTerms(call, current, { minimumCommitment, discounts }, effectiveFrom, endDate)
      : undefined;
  if (deal && effectiveFrom !== undefined) {
    const from = startOfUtcDay(new Date(effectiveFrom));
    billedFrom = earliest(from);
    invoicedChecks.push(() => assertNotInvoiced(call, current.id, from, "effectiveFrom"));
  }
  if (amendedFields.length > 0) entries.push({ at: now.toISOString(), kind: "amendment", fields: amendedFields, by });
  const saved = await commit(call, current.id, version, entries, state, billedFrom, {
    amended,
    terms,
    invoicedChecks,
    ...(deal && { deal }),
  });
  if (amended.creditGrants !== undefined) await scheduleContractCredits(call, saved);
  return saved;
}
