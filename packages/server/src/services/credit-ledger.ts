import { type CreditGrant, type CreditLedgerEntry, MAX_AMOUNT } from "@billing/shared";
import { ObjectId } from "mongodb";
import type { PageRequest } from "../db/pagination.js";
import { conflict, notFound } from "../domain/errors.js";
import { grantTermsOf, type InvoiceToPay, inBurnOrder, payableMicros } from "../domain/grants.js";
import { BalanceCeilingError, MAX_BALANCE_MICROS, MAX_OPEN_GRANTS, TooManyGrantsError } from "../domain/ledger.js";
import { DEFAULT_CURRENCY } from "../domain/money/currency.js";
import type { Micros } from "../domain/money/micros.js";
import { microsOf } from "../presenters/money.js";
import type { CallScope } from "./call-scope.js";
import { issueDueForCustomer, startRecurrence } from "./credit-recurrences.js";
import { publishCreditEntries } from "./webhook-events.js";

/** An outcome without its `written` list (each alternative of a union kept apart). */
type Published<T> = T extends unknown ? Omit<T, "written"> : never;

/**
 * The credit ledger's movements and reads. Each writes its entries (and the due ones before them) through the credits
 * repository and publishes their events itself, so no caller can forget to: callers get what they asked for, never a
 * list of entries to announce.
 */
async function published<T extends { written: CreditLedgerEntry[] }>(
  { repositories, accountId, log }: CallScope,
  outcome: T,
): Promise<Published<T>> {
  const { written, ...rest } = outcome;
  await publishCreditEntries(repositories, accountId, log, written);
  return rest as Published<T>;
}

/**
 * Adds a grant on the terms given (those left out filled in: grantTermsOf); 409 when the balance would pass its
 * ceiling, or the customer already holds MAX_OPEN_GRANTS grants with money left: the grant is valid in itself, the
 * ledger it meets refuses it. A grant that expires is first noted for billing runs, the note dropped again when the
 * ledger refuses the grant: no grant exists whose expiry a run cannot find.
 */
export async function grantCredits(scope: CallScope, input: CreditGrant, now: Date): Promise<CreditLedgerEntry> {
  const { repositories, accountId } = scope;
  const { customerId, amount, effectiveAt, expiresAt, priority } = input;
  const references = { contractId: input.contractId, invoiceId: input.invoiceId, erpId: input.erpId };
  const currency = input.currency ?? (await defaultCurrencyOf(scope));
  const terms = grantTermsOf({ effectiveAt, expiresAt, priority, currency }, now);
  if (input.recurrence) return grantRecurring(scope, { ...input, customerId }, terms);
  const note = terms.expiresAt && (await repositories.creditExpiries.note(accountId, customerId, terms.expiresAt));
  try {
    const granting = await repositories.credits.grant(
      accountId,
      customerId,
      { micros: microsOf(amount), terms },
      references,
    );
    return (await published(scope, granting)).entry;
  } catch (error) {
    const refused = error instanceof TooManyGrantsError || error instanceof BalanceCeilingError;
    // Refused before anything was written: its expiry note goes too.
    if (note && refused) await repositories.creditExpiries.drop(note);
    if (error instanceof TooManyGrantsError) throw tooManyGrants();
    if (error instanceof BalanceCeilingError) throw aboveCeiling();
    throw error;
  }
}

/** A recurring grant (`recurrence`): its first period's `Grant` entry; the ledger's refusals as grantCredits's. */
async function grantRecurring(scope: CallScope, input: CreditGrant, terms: ReturnType<typeof grantTermsOf>) {
  const { every, count, rollover } = input.recurrence ?? { every: { value: 1 } };
  try {
    return await startRecurrence(scope, new ObjectId().toHexString(), {
      customerId: input.customerId,
      amountMicros: microsOf(input.amount),
      currency: terms.currency,
      priority: terms.priority,
      anchor: terms.effectiveAt,
      everyMonths: every.value,
      count,
      rolloverMaxMicros: rollover && microsOf(rollover.maxAmount),
      expiresAfter: undefined,
      references: { contractId: input.contractId, invoiceId: input.invoiceId, erpId: input.erpId },
    });
  } catch (error) {
    if (error instanceof TooManyGrantsError) throw tooManyGrants();
    if (error instanceof BalanceCeilingError) throw aboveCeiling();
    throw error;
  }
}

/** The currency of what names none: the account's `defaultCurrency`. */
export const defaultCurrencyOf = async ({ repositories, accountId }: CallScope) =>
  (await repositories.accounts.get(accountId))?.defaultCurrency ?? DEFAULT_CURRENCY;

const tooManyGrants = () =>
  conflict(`The customer already holds ${MAX_OPEN_GRANTS} grants with money left: void or use some first`);
const aboveCeiling = () =>
  conflict(`amount would take the customer's credit balance above ${MAX_AMOUNT} USD`, [
    { path: "amount", message: `would take the balance above ${MAX_AMOUNT} USD` },
  ]);

/**
 * 409 as `grantCredits` answers it when a grant of `micros` would not fit the customer's ledger as it stands: for a
 * change (a CREDITS credit note) that is logged before its grant is written, so that the grant is not refused after.
 */
export async function assertGrantFits(scope: CallScope, customerId: string, micros: number): Promise<void> {
  const { balanceMicros, grants } = await creditBalanceOf(scope, customerId);
  if (grants.length >= MAX_OPEN_GRANTS) throw tooManyGrants();
  if (balanceMicros + micros > MAX_BALANCE_MICROS) throw aboveCeiling();
}

/**
 * The settled balance and the grants with money left, in burn order, after issuing the recurring grants' due periods
 * and writing the due entries.
 */
export async function creditBalanceOf(scope: CallScope, customerId: string) {
  await issueDueForCustomer(scope, customerId);
  const { state, written } = await scope.repositories.credits.settle(scope.accountId, customerId);
  return published(scope, { balanceMicros: state.balanceMicros, grants: inBurnOrder(state.grants), written });
}

/** Why a void writes nothing, as the caller reads it. */
const VOID_REFUSALS = {
  "not-a-grant": "Only a grant can be voided: this entry moves a grant's money but is not one",
  "nothing-left": "Nothing is left of this grant to void: it was spent, expired or voided",
};

/**
 * Voids what is left of a grant and returns its `Void` entry; 404 for no entry of the account, 409 when the entry is
 * not a grant or nothing is left of it. A refusal publishes too: settling may have written an expiration (the reason
 * nothing is left).
 */
export async function voidGrant(scope: CallScope, entryId: string): Promise<CreditLedgerEntry> {
  const outcome = await published(scope, await scope.repositories.credits.void(scope.accountId, entryId));
  if ("entry" in outcome) return outcome.entry;
  if (outcome.refused === "not-found") throw notFound("Credit entry");
  throw conflict(VOID_REFUSALS[outcome.refused]);
}

/** A page of the customer's ledger, due periods issued and due entries written (and published) first. */
export async function creditEntriesOf(scope: CallScope, customerId: string, page: PageRequest) {
  await issueDueForCustomer(scope, customerId);
  const { written } = await scope.repositories.credits.settle(scope.accountId, customerId);
  await published(scope, { written });
  return { entries: await scope.repositories.credits.list(scope.accountId, customerId, page) };
}

/**
 * What credits could pay of the invoice, whole minor units of its currency, as the ledger stands now with its due
 * entries applied in memory: nothing is written (previews store nothing).
 */
export const payableByCredits = async (
  scope: Pick<CallScope, "repositories" | "accountId">,
  customerId: string,
  invoice: InvoiceToPay,
) => (await creditsToPay(scope, customerId, invoice)).payableMicros;

/** What credits could pay of the invoice (see payableByCredits), and whether the customer's ledger has no entry. */
export async function creditsToPay(
  scope: Pick<CallScope, "repositories" | "accountId">,
  customerId: string,
  invoice: InvoiceToPay,
) {
  const { grants, empty } = await scope.repositories.credits.balance(scope.accountId, customerId);
  return { payableMicros: payableMicros(grants, invoice), empty };
}

/**
 * Pays an invoice from credits (see the repository's payInvoice), publishing what this call wrote and the payment's
 * last entry whoever wrote it (credit.depleted when it emptied the balance).
 */
export async function payInvoiceFromCredits(
  scope: CallScope,
  customerId: string,
  payment: InvoiceToPay & { invoiceId: string; contractId?: string; maxMicros: Micros },
) {
  const { written, ...paid } = await scope.repositories.credits.payInvoice(scope.accountId, customerId, payment);
  return published(scope, { ...paid, written: paid.lastEntry ? [...written, paid.lastEntry] : written });
}

/**
 * Takes a money reservation's settlement off the balance once (see the repository's payReservation), publishing
 * what this call wrote and the payment's last entry whoever wrote it (credit.depleted when it emptied the balance).
 */
export async function payReservationFromCredits(
  scope: CallScope,
  customerId: string,
  payment: InvoiceToPay & { reservationId: string; maxMicros: Micros },
) {
  const { written, ...paid } = await scope.repositories.credits.payReservation(scope.accountId, customerId, payment);
  return published(scope, { ...paid, written: paid.lastEntry ? [...written, paid.lastEntry] : written });
}

/**
 * Writes the account's expirations that have come by `now`, for the customers of at most `limit` expiries (the
 * earliest first), so that the ledger shows them without waiting for the customer's next movement or read: each
 * customer's ledger is settled, then the note removed. True when more may be due.
 */
export async function expireDueCredits(scope: CallScope, now: Date, limit: number): Promise<boolean> {
  const { repositories, accountId } = scope;
  const due = await repositories.creditExpiries.due(accountId, now, limit + 1);
  const written: CreditLedgerEntry[] = [];
  for (const expiry of due.slice(0, limit)) {
    written.push(...(await repositories.credits.settle(accountId, expiry.customerId)).written);
    await repositories.creditExpiries.drop(expiry._id);
  }
  await published(scope, { written });
  return due.length > limit;
}

/**
 * Gives back what credits paid of a voided invoice, one `Reversal` entry per grant (see the repository's
 * reverseInvoice), publishing what it wrote; the `Reversal` entries this call wrote.
 */
export const returnInvoiceCredits = async (scope: CallScope, customerId: string, invoiceId: string) =>
  (await published(scope, await scope.repositories.credits.reverseInvoice(scope.accountId, customerId, invoiceId)))
    .reversals;

/** The `Grant` of a `CREDITS` credit note, written once (see the repository's grantCreditNote), published. */
export const grantCreditNoteCredits = async (
  scope: CallScope,
  customerId: string,
  note: { creditNoteId: string; micros: Micros; currency: string; now: Date },
): Promise<CreditLedgerEntry> =>
  (await published(scope, await scope.repositories.credits.grantCreditNote(scope.accountId, customerId, note))).entry;
