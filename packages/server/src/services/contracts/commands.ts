import {
  type ContractAmendment,
  type ContractCreate,
  type ContractHistoryEntry,
  type ContractTermination,
  type ContractUpdate,
  DAY_MS,
} from "@billing/shared";
import { billingNow } from "../../billing-clock.js";
import type {
  ContractCreateInMicros,
  ContractInMicros,
  ContractLifeFields,
  TermsInMicros,
} from "../../domain/billing/contract.js";
import { BEFORE_EVERYTHING, startOfUtcDay } from "../../domain/billing/cycles.js";
import { type AmendedTerms, amendTerms, type PlanMove, termsOf } from "../../domain/contracts/amendments.js";
import { contractAsOf } from "../../domain/contracts/lifecycle.js";
import { lifecycleEventsOf } from "../../domain/contracts/lifecycle-events.js";
import type { SeatChange } from "../../domain/contracts/seats.js";
import { assertTransition, isFinal, type LifecycleEntry, statusOnDeletion } from "../../domain/contracts/status.js";
import { badRequest, conflict, notFound } from "../../domain/errors.js";
import { contractInMicros, presentContract, termsInMicros } from "../../presenters/contracts.js";
import type { ContractDeletionDoc, LifecycleState } from "../../repositories/contracts.js";
import type { CallScope } from "../call-scope.js";
import { asReadNow, readContractIncludingDeleted } from "../contract-reads.js";
import { scheduleContractCredits } from "../credit-recurrences.js";
import { checkUsagePricedOnce } from "../priced-usage.js";
import { contractTaxCodes, requireLiveTaxRates } from "../tax-rates.js";
import { publishChange } from "../webhook-events.js";
import { rescheduleFrom, scheduleBilling } from "./billing-schedule.js";
import { entryOf, loadForChange, publishEntries, SYSTEM, stateOf } from "./timed-changes.js";

/**
 * The changes of a contract a caller makes, each written and published (its webhook) by the function that makes it:
 * creation, deletion, an update (pause, resumption, amended fields or terms) and a termination.
 */

/**
 * Stores a new contract and publishes `contract.created`. The caller has resolved `input.customerId` to a customer
 * of the account. The billing schedule is recorded before the contract is stored, so that every stored contract has
 * one whatever stops the insert. A contract naming no currency takes the account's default.
 */
export async function createContract(
  { repositories, accountId, log }: CallScope,
  input: ContractCreate,
  planned?: Pick<ContractCreateInMicros, "plan" | "planOverrides" | "products" | "productGroups">,
) {
  await requireLiveTaxRates(repositories, accountId, contractTaxCodes(input));
  const currency = input.currency ?? (await repositories.accounts.get(accountId))?.defaultCurrency;
  const terms = { ...contractInMicros({ ...input, ...(currency !== undefined && { currency }) }), ...planned };
  await checkUsagePricedOnce(repositories, accountId, terms);
  const prepared = repositories.contracts.prepare(accountId, terms);
  const stored = asReadNow(accountId, prepared.contract);
  await scheduleBilling(repositories, accountId, stored);
  // Its credit grants too, before it is stored: one never stored issues nothing (issuance finds no billed contract).
  await scheduleContractCredits({ repositories, accountId, log }, stored);
  await prepared.store();
  const contract = presentContract(stored);
  await publishChange(repositories, accountId, log, { type: "contract.created", data: contract });
  return contract;
}

/** Who made a deletion recorded before its record kept its token. */
const UNKNOWN_DELETER = "unknown";

/** A deletion has this many tries to log itself against concurrent changes of its contract. */
const MAX_DELETION_ATTEMPTS = 50;

/**
 * Logs a recorded deletion as one change of the contract, by the contract's machine: time's changes due by its
 * `deletedAt` first (by `system`), then the deletion, which ends the contract Terminated where the machine lets it
 * become Terminated (statusOnDeletion: a final contract, Expired or Terminated, keeps its status). Whoever completes
 * the deletion logs this same change; once logged, the contract reads deleted. The entries this call logged (none
 * when another call had).
 */
async function logDeletion(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  deletion: ContractDeletionDoc,
): Promise<LifecycleEntry[]> {
  const contractId = deletion._id.toHexString();
  for (let attempt = 1; attempt <= MAX_DELETION_ATTEMPTS; attempt += 1) {
    const found = await repositories.contracts.getForChange(accountId, contractId);
    if (!found) return [];
    const { contract, changes } = contractAsOf(found.stored, deletion.deletedAt);
    const status = statusOnDeletion(contract.status);
    const entries: LifecycleEntry[] = [
      ...changes.map((timed) => entryOf(timed, SYSTEM)),
      {
        at: deletion.deletedAt.toISOString(),
        kind: "deletion",
        ...(status !== contract.status && { from: contract.status, to: status }),
        by: deletion.by ?? UNKNOWN_DELETER,
      },
    ];
    const state = stateOf({ ...contract, status });
    if (
      await repositories.contracts.logDeletion(accountId, contractId, found.version, entries, state, deletion.deletedAt)
    )
      return entries;
  }
  throw new Error(`contract ${contractId} changed ${MAX_DELETION_ATTEMPTS} times while its deletion was logged`);
}

/**
 * Deletes the contract (404 when it is not a live contract of the account): of concurrent deletions one answers it,
 * the others complete it and answer 404. Publishes the events of what it logged (time's changes, `contract.deleted`).
 */
export async function deleteContract(call: CallScope & { holder: { tokenId: string } }, contractId: string) {
  const { repositories, accountId, log } = call;
  const claimed = await repositories.contracts.claimDeletion(accountId, contractId, call.holder.tokenId);
  if (!claimed) throw notFound("Contract");
  const logged = await logDeletion(call, claimed.deletion);
  const found = claimed.won && (await readContractIncludingDeleted(repositories, accountId, contractId));
  if (!found) throw notFound("Contract");
  const deleted = presentContract(found);
  const announced: Pick<LifecycleEntry, "kind">[] = logged.length > 0 ? logged : [{ kind: "deletion" }];
  for (const type of lifecycleEventsOf(announced))
    await publishChange(repositories, accountId, log, { type, data: deleted });
  return deleted;
}

const utcDay = (instant: string) => Math.floor(Date.parse(instant) / DAY_MS);

/** The checks of what is invoiced that a change passed, made again once it has announced itself (see commit). */
export type InvoicedChecks = (() => Promise<void>)[];

/**
 * Records the changes and the state they lead to, as one change of the contract (409 when a concurrent change
 * recorded first), then publishes the events of its entries (lifecycleEventsOf): time's changes', then the caller's.
 * A billing run may have stored an invoice since the change checked what is invoiced: the change announces itself,
 * then checks again (`invoicedChecks`), so that either it sees that invoice (409) or the run sees it in flight or
 * applied (see changedSinceRead) and leaves its invoice a draft, priced again from the contract when finalized.
 */
export async function commit(
  call: CallScope,
  contractId: string,
  version: number,
  entries: ContractHistoryEntry[],
  state: LifecycleState,
  billedFrom: Date | undefined,
  {
    amended,
    terms,
    invoicedChecks = [],
    seatChanges,
  }: {
    amended?: ContractAmendment;
    terms?: AmendedTerms;
    invoicedChecks?: InvoicedChecks;
    seatChanges?: SeatChange[];
  } = {},
) {
  const { repositories, accountId } = call;
  const done = await repositories.contracts.announceChange(accountId, contractId);
  let saved: ContractInMicros | undefined;
  try {
    for (const check of invoicedChecks) await check();
    saved = await repositories.contracts.applyChange(
      accountId,
      contractId,
      version,
      entries,
      state,
      amended,
      terms,
      seatChanges,
    );
  } finally {
    await done();
  }
  if (!saved) throw conflict("The contract was changed concurrently: read it again and retry");
  saved = asReadNow(accountId, saved);
  if (billedFrom) await rescheduleFrom(repositories, contractId, billedFrom);
  await publishEntries(call, entries, saved);
  return saved;
}

/**
 * A past day may be given only where no invoice of the contract covers it: what was invoiced stands (409).
 * A pause a customer asked for last week is entered from today when last week is invoiced.
 */
async function assertNotInvoiced(
  { repositories, accountId }: CallScope,
  contractId: string,
  day: Date,
  field: "effectiveFrom" | "at" | "endDate",
) {
  const reached = await repositories.invoices.lastCycleEnd(accountId, contractId);
  if (reached && reached > day) {
    throw conflict(`The contract is invoiced up to ${reached.toISOString()}: a change may take effect from then on`, [
      { path: field, message: `must not be before ${reached.toISOString()}` },
    ]);
  }
}

/** The inactive periods after a pause (Inactive) or resumption (Active) from `day`: 409 when before the last one. */
function pausedFrom(current: ContractLifeFields, status: "Active" | "Inactive", day: Date) {
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
async function checkNewEnd(call: CallScope, current: ContractLifeFields, endDate: string) {
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
async function checkRenewalOff(call: CallScope, current: ContractLifeFields, endDate: string | undefined) {
  if (!current.autoRenewContract || endDate === undefined) return;
  const reached = await call.repositories.invoices.lastCycleEnd(call.accountId, current.id);
  if (reached && reached > startOfUtcDay(new Date(endDate))) {
    throw conflict(`The contract is invoiced up to ${reached.toISOString()}, past its end ${endDate}: it renews`, [
      { path: "autoRenewContract", message: `cannot be switched off while invoiced past endDate ${endDate}` },
    ]);
  }
}

/** A new currency: only while no invoice of the contract exists (409: its invoices stand as they are). */
async function checkNewCurrency(call: CallScope, current: ContractLifeFields, currency: string) {
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
async function amendedTerms(
  call: CallScope,
  current: ContractInMicros,
  given: TermsInMicros,
  effectiveFrom: string,
): Promise<AmendedTerms> {
  const day = startOfUtcDay(new Date(effectiveFrom));
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
  const terms = amendTerms(current, given, day);
  await checkUsagePricedOnce(
    call.repositories,
    call.accountId,
    { ...current, ...termsOf(terms), startDate: terms.termsEffectiveFrom },
    current.id,
  );
  return terms;
}

/** The checks of the fields that go together (400 naming the field). */
function assertCombination({ status, effectiveFrom, products, productGroups }: ContractUpdate, planMove: boolean) {
  const termsChange = products !== undefined || productGroups !== undefined || planMove;
  if (termsChange && status !== undefined) {
    throw badRequest("A change of status and a change of terms are separate requests: each has its effectiveFrom", [
      { path: "status", message: "not with products or productGroups" },
    ]);
  }
  if (termsChange && effectiveFrom === undefined) {
    throw badRequest("effectiveFrom is required with new terms: the UTC day from which they bill", [
      { path: "effectiveFrom", message: "required with products or productGroups" },
    ]);
  }
  if (effectiveFrom !== undefined && status === undefined && !termsChange) {
    throw badRequest("effectiveFrom goes with status or new terms: it says when they take effect", [
      { path: "effectiveFrom", message: "only with status, products or productGroups" },
    ]);
  }
}

/**
 * Pauses (Inactive) or resumes (Active) a contract from the UTC day `effectiveFrom` (default today), recorded in its
 * inactive periods; amends the fields that do not price; or amends the terms from the UTC day `effectiveFrom` (a new
 * version: see amendTerms), new products leaving the contract's plan, a `planMove` moving it within it. One recorded
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
  const { status, effectiveFrom, endDate, products, productGroups, ...amended } = change;
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
  const amendedFields = [...Object.keys(amended), ...(endDate !== undefined ? ["endDate"] : []), ...termsFields].sort();
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
  if (amendedFields.length > 0) entries.push({ at: now.toISOString(), kind: "amendment", fields: amendedFields, by });
  const saved = await commit(call, current.id, version, entries, state, billedFrom, { amended, terms, invoicedChecks });
  if (amended.creditGrants !== undefined) await scheduleContractCredits(call, saved);
  return saved;
}

/**
 * Terminates a contract at `at` (default now): Terminated when it has come (billing stops at its day), else
 * PendingTermination until it comes. Publishes `contract.terminated` or `contract.updated`.
 */
export async function terminateContract(
  call: CallScope,
  contractId: string,
  { at, reason }: ContractTermination,
  by: string,
) {
  const { version, current, due } = await loadForChange(call, contractId);
  const now = billingNow(call.accountId);
  const when = at ? new Date(at) : now;
  const status = when > now ? ("PendingTermination" as const) : ("Terminated" as const);
  assertTransition(current.status, status);
  // A future `at` too: a cut inside an invoiced cycle would be keyed by the cut and billed again.
  const notInvoiced = () => assertNotInvoiced(call, current.id, when, "at");
  await notInvoiced();
  const change = { at: now, kind: "transition" as const, from: current.status, to: status };
  return commit(
    call,
    current.id,
    version,
    [...due.map((timed) => entryOf(timed, SYSTEM)), entryOf(change, by)],
    { ...stateOf(current), status, terminationAt: when.toISOString(), ...(reason && { terminationReason: reason }) },
    startOfUtcDay(when),
    { invoicedChecks: [notInvoiced] },
  );
}
