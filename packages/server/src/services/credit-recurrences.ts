import {
  BILLED_CONTRACT_STATUSES,
  type ContractCreditGrant,
  type CreditLedgerEntry,
  GRANT_PRIORITY,
  type RecurringGrant,
} from "@billing/shared";
import { billingNow } from "../billing-clock.js";
import type { ContractInMicros } from "../domain/billing/contract.js";
import {
  lastPeriodStarted,
  nextPeriodStart,
  periodGrantId,
  periodStart,
  periodTerms,
  type Recurrence,
  rolloverMicros,
} from "../domain/credit-recurrence.js";
import { conflict, notFound } from "../domain/errors.js";
import { BalanceCeilingError, TooManyGrantsError } from "../domain/ledger.js";
import type { Micros } from "../domain/money/micros.js";
import { microsOf } from "../presenters/money.js";
import { presentRecurringGrant } from "../presenters/recurring-grants.js";
import type { RecurrenceDoc } from "../repositories/credit-recurrences.js";
import type { CallScope } from "./call-scope.js";
import { publishChange, publishCreditEntries } from "./webhook-events.js";

/** Work one call of issuance does at most: recurring grants looked at, and periods issued of each. */
export const ISSUANCE_LIMITS = { recurrencesPerCall: 50, periodsPerRecurrence: 24 };

/** The grant of one period, as issuing it found it: written by this call or before. */
interface IssuedGrant {
  entry: CreditLedgerEntry;
  issued: boolean;
}

/**
 * Issues one period of a recurring grant: first its rollover (from period 2, with `rollover`: what the previous
 * period's grants left when they expired, up to the maximum; none when they left nothing), then its own grant. Each
 * entry's id is derived from the recurring grant and the period, so each is written once whoever issues it, on any
 * instance (the ledger's unique `_id`). Both expire with the period; the rollover, older, burns first. Each grant is
 * noted for the expiry runs. Throws the ledger's refusals (TooManyGrantsError, BalanceCeilingError). Returns the
 * period's grant and every entry written (the due expirations before them included).
 */
async function issuePeriod(scope: CallScope, doc: RecurrenceDoc, period: number) {
  const { repositories, accountId } = scope;
  const { customerId } = doc;
  const written: CreditLedgerEntry[] = [];
  const fields = {
    ...(doc.contractId !== undefined && { contractId: doc.contractId }),
    ...(doc.erpId !== undefined && { erpId: doc.erpId }),
    ...(doc.invoiceId !== undefined && { invoiceId: doc.invoiceId }),
    recurringGrantId: doc._id,
    period,
  };
  const { effectiveAt, expiresAt } = periodTerms(doc, period);
  const terms = { effectiveAt, expiresAt, priority: doc.priority, currency: doc.currency };
  const grantOnce = async (kind: "grant" | "rollover", micros: Micros) => {
    const note = await repositories.creditExpiries.note(accountId, customerId, expiresAt);
    try {
      const id = periodGrantId(doc._id, period, kind);
      const extra = kind === "rollover" ? { rollover: true } : {};
      const outcome = await repositories.credits.grantOnce(
        accountId,
        customerId,
        id,
        { micros, terms },
        {
          ...fields,
          ...extra,
        },
      );
      written.push(...outcome.written);
      if (!outcome.issued) await repositories.creditExpiries.drop(note);
      return outcome;
    } catch (error) {
      await repositories.creditExpiries.drop(note);
      throw error;
    }
  };
  if (period > 1 && doc.rolloverMaxMicros !== undefined) {
    // The previous period's grants have expired by the start of this one: settling writes their expirations.
    written.push(...(await repositories.credits.settle(accountId, customerId)).written);
    const previous = [periodGrantId(doc._id, period - 1, "grant"), periodGrantId(doc._id, period - 1, "rollover")];
    const left = await repositories.credits.expiredMicros(accountId, customerId, previous);
    const carried = rolloverMicros(doc, period, left);
    if (carried > 0) await grantOnce("rollover", carried);
  }
  const grant: IssuedGrant = await grantOnce("grant", doc.amountMicros);
  return { grant, written };
}

/** The instant a contract's grants stop (its end or termination), or "stopped" when it is not billed (or gone). */
async function contractLimit(scope: CallScope, doc: RecurrenceDoc): Promise<Date | undefined | "stopped"> {
  if (!doc.ofContract || doc.contractId === undefined) return undefined;
  const contract = await scope.repositories.contracts.get(scope.accountId, doc.contractId);
  if (!contract || !BILLED_CONTRACT_STATUSES.has(contract.status)) return "stopped";
  const ends = [contract.endDate, contract.terminationAt].flatMap((end) => (end ? [Date.parse(end)] : []));
  return ends.length > 0 ? new Date(Math.min(...ends)) : undefined;
}

/**
 * Issues the periods of a recurring grant started by `now` and not issued yet (ISSUANCE_LIMITS.periodsPerRecurrence
 * at most), then notes how far it got and when its next period starts. A contract's grant issues nothing while the
 * contract is not billed (paused, in review; its periods then are skipped), and no period starting at or after the
 * contract's end. A period the ledger refuses (100 open grants, the balance ceiling) is skipped and logged. The
 * entries written are published. True when periods are left due.
 */
async function issueRecurrence(scope: CallScope, doc: RecurrenceDoc, now: Date): Promise<boolean> {
  const limit = await contractLimit(scope, doc);
  const until = limit === "stopped" ? undefined : limit;
  let last = lastPeriodStarted(doc, now, until);
  // A contract's grant is stopped by its contract's command (stoppedAfter); one of POST /credits by its cancellation.
  const canceled = doc.ofContract ? null : await scope.repositories.creditRecurrences.stopOf(scope.accountId, doc._id);
  const stoppedAfter = canceled ? canceled.lastPeriod : doc.stoppedAfter;
  if (stoppedAfter !== undefined) last = Math.min(last, stoppedAfter);
  const through = Math.min(last, doc.issuedThrough + ISSUANCE_LIMITS.periodsPerRecurrence);
  const written: CreditLedgerEntry[] = [];
  for (let period = doc.issuedThrough + 1; period <= through && limit !== "stopped"; period += 1) {
    try {
      written.push(...(await issuePeriod(scope, doc, period)).written);
    } catch (error) {
      if (!(error instanceof TooManyGrantsError || error instanceof BalanceCeilingError)) throw error;
      scope.log.warn({ recurringGrantId: doc._id, period, reason: error.message }, "a period's grant was refused");
    }
  }
  await publishCreditEntries(scope.repositories, scope.accountId, scope.log, written);
  const issuedThrough = Math.max(doc.issuedThrough, through);
  const stopped = stoppedAfter !== undefined && issuedThrough >= stoppedAfter;
  const more = through < last;
  const next = more ? now : stopped ? undefined : nextPeriodStart(doc, issuedThrough, until);
  await scope.repositories.creditRecurrences.noteIssued(scope.accountId, doc, issuedThrough, next ?? null);
  return more;
}

/** Issues what is due by now of the customer's recurring grants: before a read or a payment of the ledger. */
export async function issueDueForCustomer(scope: CallScope, customerId: string): Promise<void> {
  const now = billingNow(scope.accountId);
  const { recurrencesPerCall } = ISSUANCE_LIMITS;
  const due = await scope.repositories.creditRecurrences.dueForCustomer(
    scope.accountId,
    customerId,
    now,
    recurrencesPerCall,
  );
  for (const doc of due) await issueRecurrence(scope, doc, now);
}

/** Issues what is due by `now` of the account's recurring grants, within one call's limits; true when more is due. */
export async function issueDueForAccount(scope: CallScope, now: Date): Promise<boolean> {
  const { recurrencesPerCall } = ISSUANCE_LIMITS;
  const due = await scope.repositories.creditRecurrences.dueForAccount(scope.accountId, now, recurrencesPerCall + 1);
  let more = due.length > recurrencesPerCall;
  for (const doc of due.slice(0, recurrencesPerCall)) if (await issueRecurrence(scope, doc, now)) more = true;
  return more;
}

/** A new recurring grant of `POST /credits` (its terms checked): what it issues each period. */
export interface NewRecurrence extends Recurrence {
  customerId: string;
  amountMicros: Micros;
  currency: string;
  priority: number;
  references: { contractId?: string | undefined; erpId?: string | undefined; invoiceId?: string | undefined };
}

/**
 * Stores a recurring grant and issues its first period at once (and the second, when the first began a period ago and
 * the second has started): the first period's `Grant` entry. The ledger's refusal of the first period removes the
 * recurring grant and is thrown (nothing stays of it).
 */
export async function startRecurrence(scope: CallScope, id: string, input: NewRecurrence): Promise<CreditLedgerEntry> {
  const { references, ...terms } = input;
  const doc: RecurrenceDoc = {
    _id: id,
    accountId: scope.accountId,
    ...terms,
    ...Object.fromEntries(Object.entries(references).filter(([, value]) => value !== undefined)),
    ofContract: false,
    issuedThrough: 0,
    nextDueAt: periodStart(input, 1),
    createdAt: new Date(),
  };
  await scope.repositories.creditRecurrences.put(doc);
  let first: Awaited<ReturnType<typeof issuePeriod>>;
  try {
    first = await issuePeriod(scope, doc, 1);
  } catch (error) {
    await scope.repositories.creditRecurrences.remove(scope.accountId, doc);
    throw error;
  }
  await publishCreditEntries(scope.repositories, scope.accountId, scope.log, first.written);
  await issueRecurrence(scope, { ...doc, issuedThrough: 1 }, billingNow(scope.accountId));
  return first.grant.entry;
}

/** The key of a contract's `creditGrants[index]`: its recurring grant's id. */
const contractGrantKey = (contractId: string, index: number) => `${contractId}/${index}`;

/**
 * Records a contract's `creditGrants` as recurring grants, periods counted from its start (a create, or an update
 * replacing them): each keeps the periods it issued, new terms apply to the periods not issued yet, and a grant
 * removed by the update stops after the period started by now. Issuance then issues what is due.
 */
export async function scheduleContractCredits(
  scope: CallScope,
  contract: Pick<ContractInMicros, "id" | "customerId" | "currency" | "startDate"> & {
    creditGrants?: ContractCreditGrant[] | undefined;
  },
): Promise<void> {
  const { repositories, accountId } = scope;
  const grants = contract.creditGrants ?? [];
  const anchor = new Date(contract.startDate);
  for (const [index, grant] of grants.entries()) {
    const recurrence: Recurrence = {
      anchor,
      everyMonths: grant.recurrence.every.value,
      count: grant.recurrence.count,
      rolloverMaxMicros: grant.recurrence.rollover && microsOf(grant.recurrence.rollover.maxAmount),
      expiresAfter: grant.expiresAfter,
    };
    await repositories.creditRecurrences.put({
      _id: contractGrantKey(contract.id, index),
      accountId,
      customerId: contract.customerId,
      amountMicros: microsOf(grant.amount),
      currency: contract.currency,
      priority: grant.priority ?? GRANT_PRIORITY.default,
      contractId: contract.id,
      ofContract: true,
      ...recurrence,
      nextDueAt: periodStart(recurrence, 1),
    });
  }
  const now = billingNow(accountId);
  for (const doc of await repositories.creditRecurrences.ofContract(accountId, contract.customerId, contract.id)) {
    const index = Number(doc._id.slice(doc._id.lastIndexOf("/") + 1));
    if (index >= grants.length && doc.stoppedAfter === undefined)
      await repositories.creditRecurrences.stop(accountId, doc, lastPeriodStarted(doc, now));
  }
}

/**
 * Cancels the recurring grant of `POST /credits` that the `Grant` entry `entryId` belongs to (404 when the account has
 * no such entry; 409 naming `entryId` when it belongs to no recurring grant, or to a contract's, which changes with
 * its contract's `creditGrants`): the periods started by now are issued first and stay; none after them is. Of
 * concurrent cancellations one records it (a unique insert) and publishes `credit.recurrence_canceled`; the others,
 * and any later, answer it as recorded.
 */
export async function cancelRecurrence(scope: CallScope, entryId: string): Promise<RecurringGrant> {
  const { repositories, accountId } = scope;
  const entry = await repositories.credits.entry(accountId, entryId);
  if (!entry) throw notFound("Credit entry");
  const id = entry.recurringGrantId;
  const doc = id === undefined ? null : await repositories.creditRecurrences.get(accountId, id, entry.customerId);
  if (!doc) {
    throw conflict("The entry is not a grant of a recurring grant", [
      { path: "entryId", message: "not an entry of a recurring grant" },
    ]);
  }
  if (doc.ofContract) {
    throw conflict("A contract's recurring grant changes with its contract: PATCH /contracts/{id} creditGrants", [
      { path: "entryId", message: "an entry of a contract's creditGrants" },
    ]);
  }
  await issueDueForCustomer(scope, doc.customerId);
  const lastPeriod = Math.max(1, lastPeriodStarted(doc, billingNow(accountId)));
  const won = await repositories.creditRecurrences.cancel(accountId, doc._id, lastPeriod, billingNow(accountId));
  const [stored, stop] = await Promise.all([
    repositories.creditRecurrences.get(accountId, doc._id, doc.customerId),
    repositories.creditRecurrences.stopOf(accountId, doc._id),
  ]);
  const shown = presentRecurringGrant(stored ?? doc, stop);
  if (won) await publishChange(repositories, accountId, scope.log, { type: "credit.recurrence_canceled", data: shown });
  return shown;
}
