import { type CreditEntryType, type CreditLedgerEntry, fromMicros } from "@billing/shared";
import { ObjectId } from "mongodb";
import { iso } from "../db/ids.js";
import { balanceIn } from "../domain/grants.js";
import type { LedgerState, LedgerStep } from "../domain/ledger.js";
import { DEFAULT_CURRENCY } from "../domain/money/currency.js";
import { asMicros, type Micros } from "../domain/money/micros.js";

// A credit ledger entry as the repository stores it (micro-units, the state after it as compact JSON text) and as
// the API shows it: the shapes of the stored entry, and the conversions between them.

/**
 * Every call that settles the ledger returns `written`: the entries it wrote itself (due payment parts and
 * expirations, its own entry included where it has one), in ledger order, for services/credit-ledger.ts to publish
 * their events. An entry another writer took first is that writer's to report.
 */
export interface Written {
  written: CreditLedgerEntry[];
}

export type VoidOutcome = ({ entry: CreditLedgerEntry } | { refused: "not-found" | "not-a-grant" | "nothing-left" }) &
  Written;

/** An invoice's payment by credits: its total and its last `Usage` entry (both undefined when nothing was paid). */
export interface PaymentOutcome extends Written {
  spentMicros: Micros | undefined;
  lastEntry: CreditLedgerEntry | undefined;
}

export interface EntryReferences {
  contractId?: string | undefined;
  invoiceId?: string | undefined;
  erpId?: string | undefined;
  creditNoteId?: string | undefined;
  /** A money reservation's settlement (`Usage` entries): the reservation's id. */
  reservationId?: string | undefined;
}

/**
 * A ledger entry as stored: `seq` (1, 2, … per customer) is its place in the ledger, `balanceAfterMicros` the balance
 * there, `stateJson` the rest of the state after it (see LedgerState).
 */
export interface EntryDoc extends EntryReferences, PeriodFields {
  _id: ObjectId;
  accountId: string;
  customerId: string;
  seq: number;
  type: CreditEntryType;
  amountMicros: Micros;
  balanceAfterMicros: Micros;
  createdAt: Date;
  grantId?: string;
  /** The currency of the grant the entry moves; absent on entries stored before currencies: USD. */
  currency?: string;
  /** The balance in `currency` after the entry (`balanceAfterMicros` sums every currency's). */
  currencyBalanceAfterMicros?: Micros;
  /** A `Grant` entry's terms. */
  effectiveAt?: Date;
  expiresAt?: Date;
  priority?: number;
  /** `Usage` entries: the whole payment of their invoice, which their consecutive entries make together. */
  paymentMicros?: Micros;
  /**
   * The grants with money left and the payment parts still to write, as JSON text: read from the last entry only,
   * never queried. FerretDB decodes every document of the collection for each query, so size counts: measured on
   * test/credits.test.ts, 44 s as nested documents, 15 s as JSON objects, 11 s as tuples (8 s before grants had terms).
   */
  stateJson: string;
}

/**
 * The part of a LedgerState kept in `stateJson`: each grant as a tuple (its field names would double the text),
 * instants as epoch milliseconds, no expiry as null; each pending burn as [grantId, micros].
 */
interface StoredState {
  grants: [
    grantId: string,
    seq: number,
    amountMicros: Micros,
    remainingMicros: Micros,
    effectiveAt: number,
    expiresAt: number | null,
    priority: number,
    /** Absent on states stored before currencies: USD. */
    currency?: string,
  ][];
  pending: [grantId: string, micros: number][];
}

/** A recurring grant's period, on its `Grant` entries (see services/credit-recurrences.ts). */
export interface PeriodFields {
  recurringGrantId?: string | undefined;
  period?: number | undefined;
  rollover?: boolean | undefined;
}

/** The period fields that are set. */
export const periodFieldsOf = ({ recurringGrantId, period, rollover }: PeriodFields): PeriodFields => ({
  ...(recurringGrantId !== undefined && { recurringGrantId }),
  ...(period !== undefined && { period }),
  ...(rollover && { rollover }),
});

/** The references that are set (the driver would store an undefined one as null). */
export const referencesOf = ({
  contractId,
  invoiceId,
  erpId,
  creditNoteId,
  reservationId,
}: EntryReferences): EntryReferences => ({
  ...(contractId !== undefined && { contractId }),
  ...(invoiceId !== undefined && { invoiceId }),
  ...(erpId !== undefined && { erpId }),
  ...(creditNoteId !== undefined && { creditNoteId }),
  ...(reservationId !== undefined && { reservationId }),
});

export const toEntry = (doc: EntryDoc): CreditLedgerEntry => ({
  id: doc._id.toHexString(),
  customerId: doc.customerId,
  createdAt: iso(doc.createdAt),
  type: doc.type,
  amount: fromMicros(doc.amountMicros),
  currency: doc.currency ?? DEFAULT_CURRENCY,
  balanceAfterEntry: fromMicros(doc.currencyBalanceAfterMicros ?? doc.balanceAfterMicros),
  // Integration entities come from CRM sync, which no operation of the spec performs: none so far.
  integrationEntities: [],
  ...referencesOf(doc),
  ...(doc.grantId !== undefined && { grantId: doc.grantId }),
  ...(doc.effectiveAt && { effectiveAt: iso(doc.effectiveAt) }),
  ...(doc.expiresAt && { expiresAt: iso(doc.expiresAt) }),
  ...(doc.priority !== undefined && { priority: doc.priority }),
  ...periodFieldsOf(doc),
});

export const storeState = ({ grants, pending }: LedgerState): string =>
  JSON.stringify({
    grants: grants.map((grant) => [
      grant.grantId,
      grant.seq,
      grant.amountMicros,
      grant.remainingMicros,
      grant.effectiveAt.getTime(),
      grant.expiresAt?.getTime() ?? null,
      grant.priority,
      grant.currency,
    ]),
    pending: pending.map(({ grantId, micros }) => [grantId, micros]),
  } satisfies StoredState);

/** The state after a stored entry. */
export function stateAfter(doc: EntryDoc): LedgerState {
  const { seq, balanceAfterMicros: balanceMicros } = doc;
  const { grants, pending } = JSON.parse(doc.stateJson) as StoredState;
  return {
    seq,
    balanceMicros,
    grants: grants.map(
      ([grantId, grantSeq, amountMicros, remainingMicros, effectiveAt, expiresAt, priority, currency]) => ({
        grantId,
        seq: grantSeq,
        amountMicros: asMicros(amountMicros),
        remainingMicros: asMicros(remainingMicros),
        effectiveAt: new Date(effectiveAt),
        expiresAt: expiresAt === null ? undefined : new Date(expiresAt),
        priority,
        currency: currency ?? DEFAULT_CURRENCY,
      }),
    ),
    pending: pending.map(([grantId, micros]) => ({ grantId, micros: asMicros(micros) })),
  };
}

/** A new entry of a customer's ledger: the movement of `step`, the state after it, and `fields` (its references). */
export function newEntryDoc(
  accountId: string,
  customerId: string,
  step: LedgerStep,
  fields: Partial<EntryDoc> = {},
): EntryDoc {
  const { after } = step;
  const _id = fields._id ?? new ObjectId();
  return {
    _id,
    accountId,
    customerId,
    seq: after.seq,
    type: step.type,
    amountMicros: step.amountMicros,
    balanceAfterMicros: after.balanceMicros,
    currency: step.currency,
    currencyBalanceAfterMicros: balanceIn(after.grants, step.currency),
    grantId: step.grantId,
    ...fields,
    stateJson: storeState(after),
    createdAt: new Date(),
  };
}

/** What a `Usage` entry repeats of its payment's first entry: the invoice, its contract and the payment's total. */
export const paymentFieldsOf = ({ invoiceId, contractId, reservationId, paymentMicros }: EntryDoc) => ({
  ...referencesOf({ invoiceId, contractId, reservationId }),
  ...(paymentMicros !== undefined && { paymentMicros }),
});

/** The grant an entry moved: its `grantId`, or the entry itself for one from before grants had entries of their own. */
export const grantKeyOf = (entry: EntryDoc) => entry.grantId ?? entry._id.toHexString();

/** A payment's total, read from any of its entries; a payment from before grants had terms is its one entry. */
export const paymentTotalOf = (entry: EntryDoc): Micros => entry.paymentMicros ?? asMicros(-entry.amountMicros);
