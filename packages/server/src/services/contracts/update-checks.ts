import { type ContractUpdate, DAY_MS } from "@billing/shared";
import type { ContractInMicros, ContractLifeFields, TermsInMicros } from "../../domain/billing/contract.js";
import { startOfUtcDay } from "../../domain/billing/cycles.js";
import { type AmendedTerms, amendTerms, termsOf } from "../../domain/contracts/amendments.js";
import { type AmendedDealTerms, amendDealTerms } from "../../domain/contracts/deal-terms.js";
import { isFinal } from "../../domain/contracts/status.js";
import { badRequest, conflict } from "../../domain/errors.js";
import { dealTermsInMicros } from "../../presenters/contracts.js";
import type { CallScope } from "../call-scope.js";
import { checkUsagePricedOnce } from "../priced-usage.js";
import { assertNotInvoiced } from "./commit.js";

/** The checks of an update of a contract (PATCH /contracts/{id}), and the state and terms they lead to. */

const utcDay = (instant: string) => Math.floor(Date.parse(instant) / DAY_MS);

/** The inactive periods after a pause (Inactive) or resumption (Active) from `day`: 409 when before the last one. */
export function pausedFrom(current: ContractLifeFields, status: "Active" | "Inactive", day: Date) {
  const periods = current.inactivePeriods ?? [];
  const open = periods.at(-1);
  if (status === "Active" && open && !open.to && Date.parse(open.from) > day.getTime()) {
    throw conflict(`The pause starts on ${open.from}: the contract can be resumed from that day on`, [
      { path: "effectiveFrom", message: `must not be before ${open.from}` },
    ]);
  }
  if (status === "Inactive" && open?.to && Date.parse(open.to) > day.getTime()) {
    throw conflict(`The last pause ended on ${open.to}: a new one can start from that day on`, [
      { path: "effectiveFrom", message: `must not be before ${open.to}` },
    ]);
  }
  if (status === "Inactive") return [...periods, { from: day.toISOString() }];
  return open && !open.to ? [...periods.slice(0, -1), { from: open.from, to: day.toISOString() }] : periods;
}

/**
 * A new `endDate`: on a later UTC day than the start (400), not before a day an invoice covers (409), and not on a
 * final contract, whose end is history (409).
 */
export async function checkNewEnd(call: CallScope, current: ContractLifeFields, endDate: string) {
  if (utcDay(endDate) <= utcDay(current.startDate)) {
    throw badRequest("endDate must fall on a later UTC day than startDate (contracts cover whole days)", [
      { path: "endDate", message: "must fall on a later UTC day than startDate" },
    ]);
  }
  if (isFinal(current.status)) {
    throw conflict(`The contract is ${current.status}: its endDate no longer changes`, [
      { path: "endDate", message: `cannot change on a ${current.status} contract` },
    ]);
  }
  await assertNotInvoiced(call, current.id, startOfUtcDay(new Date(endDate)), "endDate");
}

/**
 * `autoRenewContract` switched off: the term then ends at `endDate` (the new one when given too), which cuts billing
 * there. A renewing contract's prepaid cycle is billed whole across its end (billedContract), so while an invoice
 * covers days past that end the renewal stands (409): what was invoiced is not billed again or cut afterwards.
 */
export async function checkRenewalOff(call: CallScope, current: ContractLifeFields, endDate: string | undefined) {
  if (!current.autoRenewContract || endDate === undefined) return;
  const reached = await call.repositories.invoices.lastCycleEnd(call.accountId, current.id);
  if (reached && reached > startOfUtcDay(new Date(endDate))) {
    throw conflict(`The contract is invoiced up to ${reached.toISOString()}, past its end ${endDate}: it renews`, [
      { path: "autoRenewContract", message: `cannot be switched off while invoiced past endDate ${endDate}` },
    ]);
  }
}

/** A new currency: only while no invoice of the contract exists (409: its invoices stand as they are). */
export async function checkNewCurrency(call: CallScope, current: ContractLifeFields, currency: string) {
  if (currency === current.currency) return;
  if (await call.repositories.invoices.lastCycleEnd(call.accountId, current.id)) {
    throw conflict(`The contract has invoices in ${current.currency}: its currency no longer changes`, [
      { path: "currency", message: `cannot change once the contract has invoiced` },
    ]);
  }
}

/**
 * New terms from the UTC day of `effectiveFrom`: not before the contract's first day (400), nor on a final contract,
 * nor before a day an invoice covers or the current version's first day (409); their usage prices must not be priced
 * by another contract over the days they bill (409, see checkUsagePricedOnce).
 */
export async function amendedTerms(
  call: CallScope,
  current: ContractInMicros,
  given: TermsInMicros,
  effectiveFrom: string,
): Promise<AmendedTerms> {
  const day = startOfUtcDay(new Date(effectiveFrom));
  await assertTermsChangeFrom(call, current, day);
  const terms = amendTerms(current, given, day);
  await checkUsagePricedOnce(
    call.repositories,
    call.accountId,
    { ...current, ...termsOf(terms), startDate: terms.termsEffectiveFrom },
    current.id,
  );
  return terms;
}

/** Whether a change amends the contract's own deal terms (minimum commitment, discounts). */
export const amendsDeal = ({ minimumCommitment, discounts }: ContractUpdate) =>
  minimumCommitment !== undefined || discounts !== undefined;

/** The checks of the fields that go together (400 naming the field). */
export function assertCombination(change: ContractUpdate, planMove: boolean) {
  const { status, effectiveFrom, products, productGroups } = change;
  const termsChange = products !== undefined || productGroups !== undefined || planMove || amendsDeal(change);
  const termsFields = "products, productGroups, minimumCommitment or discounts";
  if (termsChange && status !== undefined) {
    throw badRequest("A change of status and a change of terms are separate requests: each has its effectiveFrom", [
      { path: "status", message: `not with ${termsFields}` },
    ]);
  }
  if (termsChange && effectiveFrom === undefined) {
    throw badRequest("effectiveFrom is required with new terms: the UTC day from which they bill", [
      { path: "effectiveFrom", message: `required with ${termsFields}` },
    ]);
  }
  if (effectiveFrom !== undefined && status === undefined && !termsChange) {
    throw badRequest("effectiveFrom goes with status or new terms: it says when they take effect", [
      { path: "effectiveFrom", message: `only with status, ${termsFields}` },
    ]);
  }
}

/**
 * New deal terms (minimum commitment, discounts) from the UTC day `effectiveFrom`: not before the contract's first
 * day, and a TERM commitment only with an end (400); not on a final contract, nor before a day an invoice covers or the
 * last amendment of them (409). See amendDealTerms.
 */
export async function amendedDealTerms(
  call: CallScope,
  current: ContractInMicros,
  { minimumCommitment, discounts }: Pick<ContractUpdate, "minimumCommitment" | "discounts">,
  effectiveFrom: string,
  endDate: string | undefined,
): Promise<AmendedDealTerms> {
  const day = startOfUtcDay(new Date(effectiveFrom));
  if (minimumCommitment?.period === "TERM" && (endDate ?? current.endDate) === undefined) {
    throw badRequest("A TERM minimum commitment needs an endDate (the term it sums)", [
      { path: "minimumCommitment.period", message: "TERM needs an endDate (the term it sums)" },
    ]);
  }
  await assertTermsChangeFrom(call, current, day);
  const given = dealTermsInMicros({
    ...(minimumCommitment && { minimumCommitment }),
    ...(discounts && { discounts }),
  });
  return amendDealTerms(
    current,
    {
      ...(minimumCommitment !== undefined && { minimumCommitment: given.minimumCommitment ?? null }),
      ...(discounts !== undefined && { discounts: given.discounts ?? [] }),
    },
    day,
  );
}

/**
 * A change of terms from `day` is refused before the contract's start (400: version 1 bills from there), on a final
 * contract (409), and on a day already invoiced (409), each naming `effectiveFrom`.
 */
async function assertTermsChangeFrom(call: CallScope, current: ContractInMicros, day: Date): Promise<void> {
  if (day < startOfUtcDay(new Date(current.startDate))) {
    throw badRequest("effectiveFrom must not be before the contract's startDate: version 1 bills from there", [
      { path: "effectiveFrom", message: "must not be before startDate" },
    ]);
  }
  if (isFinal(current.status)) {
    throw conflict(`The contract is ${current.status}: its terms no longer change`, [
      { path: "effectiveFrom", message: `cannot change the terms of a ${current.status} contract` },
    ]);
  }
  await assertNotInvoiced(call, current.id, day, "effectiveFrom");
}
