import {
  type CreditEntryType,
  type CreditGrant,
  type CreditLedgerEntry,
  fromMicros,
  GRANT_PRIORITY,
  toMicros,
} from "@billing/shared";
import { type Db, ObjectId } from "mongodb";
import { billingNow } from "../billing-clock.js";
import { changedSince } from "../db/changed-since.js";
import { wonInsert } from "../db/duplicate-key.js";
import { iso, toObjectId } from "../db/ids.js";
import { type PageRequest, resolveIdCursor } from "../db/pagination.js";
import {
  balanceIn,
  burnPlan,
  type GrantTerms,
  grantTermsOf,
  type InvoiceToPay,
  inBurnOrder,
  type OpenGrant,
  payableMicros,
} from "../domain/grants.js";
import {
  BalanceCeilingError,
  dueStep,
  EMPTY_LEDGER,
  grantStep,
  type LedgerState,
  type LedgerStep,
  paymentEndSeq,
  paymentStep,
  reversalStep,
  settled,
  TooManyGrantsError,
  voidStep,
} from "../domain/ledger.js";
import { DEFAULT_CURRENCY } from "../domain/money/currency.js";
import type { Hooks } from "./hooks.js";

interface EntryReferences {
  contractId?: string | undefined;
  invoiceId?: string | undefined;
  erpId?: string | undefined;
  creditNoteId?: string | undefined;
}

/**
 * A ledger entry as stored: `seq` (1, 2, … per customer) is its place in the ledger, `balanceAfterMicros` the balance
 * there, `stateJson` the rest of the state after it (see LedgerState).
 */
interface EntryDoc extends EntryReferences {
  _id: ObjectId;
  accountId: string;
  customerId: string;
  seq: number;
  type: CreditEntryType;
  amountMicros: number;
  balanceAfterMicros: number;
  createdAt: Date;
  grantId?: string;
  /** The currency of the grant the entry moves; absent on entries stored before currencies: USD. */
  currency?: string;
  /** The balance in `currency` after the entry (`balanceAfterMicros` sums every currency's). */
  currencyBalanceAfterMicros?: number;
  /** A `Grant` entry's terms. */
  effectiveAt?: Date;
  expiresAt?: Date;
  priority?: number;
  /** `Usage` entries: the whole payment of their invoice, which their consecutive entries make together. */
  paymentMicros?: number;
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
    amountMicros: number,
    remainingMicros: number,
    effectiveAt: number,
    expiresAt: number | null,
    priority: number,
    /** Absent on states stored before currencies: USD. */
    currency?: string,
  ][];
  pending: [grantId: string, micros: number][];
}

/** A grant's expiry, for billing runs to write it even when nothing else touches the customer's ledger. */
interface ExpiryDoc {
  _id: ObjectId;
  accountId: string;
  customerId: string;
  expiresAt: Date;
}

/** The field only the ledger reads: lists leave it out. */
const STATE_FIELDS = { stateJson: 0 } as const;

/** The references that are set (the driver would store an undefined one as null). */
const referencesOf = ({ contractId, invoiceId, erpId, creditNoteId }: EntryReferences): EntryReferences => ({
  ...(contractId !== undefined && { contractId }),
  ...(invoiceId !== undefined && { invoiceId }),
  ...(erpId !== undefined && { erpId }),
  ...(creditNoteId !== undefined && { creditNoteId }),
});

const toEntry = (doc: EntryDoc): CreditLedgerEntry => ({
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
});

const storeState = ({ grants, pending }: LedgerState): string =>
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
function stateAfter(doc: EntryDoc): LedgerState {
  const { seq, balanceAfterMicros: balanceMicros } = doc;
  const { grants, pending } = JSON.parse(doc.stateJson) as StoredState;
  return {
    seq,
    balanceMicros,
    grants: grants.map(
      ([grantId, grantSeq, amountMicros, remainingMicros, effectiveAt, expiresAt, priority, currency]) => ({
        grantId,
        seq: grantSeq,
        amountMicros,
        remainingMicros,
        effectiveAt: new Date(effectiveAt),
        expiresAt: expiresAt === null ? undefined : new Date(expiresAt),
        priority,
        currency: currency ?? DEFAULT_CURRENCY,
      }),
    ),
    pending: pending.map(([grantId, micros]) => ({ grantId, micros })),
  };
}

/** What a `Usage` entry repeats of its payment's first entry: the invoice, its contract and the payment's total. */
const paymentFieldsOf = ({ invoiceId, contractId, paymentMicros }: EntryDoc) => ({
  ...referencesOf({ invoiceId, contractId }),
  ...(paymentMicros !== undefined && { paymentMicros }),
});

/** The canonical (lowercase) form of a customer id, so `ABC…` and `abc…` name one ledger. */
const customerKey = (customerId: string) => toObjectId(customerId)?.toHexString() ?? customerId;

/**
 * Every call that settles the ledger returns `written`: the entries it wrote itself (due payment parts and
 * expirations, its own entry included where it has one), in ledger order, for services/credit-ledger.ts to publish
 * their events. An entry another writer took first is that writer's to report.
 */
interface Written {
  written: CreditLedgerEntry[];
}

type VoidOutcome = ({ entry: CreditLedgerEntry } | { refused: "not-found" | "not-a-grant" | "nothing-left" }) & Written;

/** An invoice's payment by credits: its total and its last `Usage` entry (both undefined when nothing was paid). */
interface PaymentOutcome extends Written {
  spentMicros: number | undefined;
  lastEntry: CreditLedgerEntry | undefined;
}

/** Where a ledger stands: its last entry (null before the first) and the state after it. */
interface Position {
  last: EntryDoc | null;
  state: LedgerState;
}

/** What a movement does at a settled position: write its entry, or answer without writing. */
type Decision = { entry: EntryDoc } | { answer: unknown };

/** When a grant of the ledger expires (an `Expiration` entry's `effectiveAt`), if it is open there. */
const expiryOf = (state: LedgerState, grantId: string) =>
  state.grants.find((grant) => grant.grantId === grantId)?.expiresAt;

/** A payment's total, read from any of its entries; a payment from before grants had terms is its one entry. */
const paymentTotalOf = (entry: EntryDoc) => entry.paymentMicros ?? -entry.amountMicros;

/**
 * The credit ledger: an append-only collection where each entry carries the state after it (balance, grants with
 * money left, a payment's parts still to write), and the unique index on (account, customer, seq) is the only
 * point of serialization. A movement reads the last entry, computes the next one (domain/ledger.ts) and inserts it
 * at seq + 1; if another movement took that place first, the insert fails on the unique index and the movement
 * starts over from the new last entry. So every race (payments, expirations, voids, grants; several instances) is
 * decided by one insert, and no entry takes more from a grant than the state it follows says the grant holds.
 *
 * Before its own entry, every movement and every read writes what is due (`settle`): the rest of a payment, then
 * the expirations that have come. No separate balance document is updated in place, because FerretDB 1.24 (SQLite)
 * applies concurrent updates of one document as read-modify-write and loses some; unique-index inserts stay exact.
 */
export function createCreditRepository(db: Db, hooks: Hooks) {
  const entries = db.collection<EntryDoc>("credit_entries");
  const expiries = db.collection<ExpiryDoc>("credit_expiries");

  /** The last entry and the state after it (the empty ledger before the first entry). */
  async function positionOf(accountId: string, customerId: string): Promise<Position> {
    const last = await entries.findOne({ accountId, customerId }, { sort: { seq: -1 } });
    return { last, state: last ? stateAfter(last) : EMPTY_LEDGER };
  }

  function entryOf(accountId: string, customerId: string, step: LedgerStep, fields: Partial<EntryDoc> = {}): EntryDoc {
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

  /** Writes the entry, or returns false when another movement took its place first. */
  async function commit(entry: EntryDoc): Promise<boolean> {
    await hooks("credits.append", entry.customerId);
    return wonInsert(entries.insertOne(entry));
  }

  /**
   * The ledger's one append loop. Each round reads the last entry; when an entry is due there (domain `dueStep`: the
   * rest of a payment, then each expiration that has come by the server's clock) it writes it, whoever else is writing
   * it; otherwise it asks `decide` for this movement's entry at that settled position, or for an answer that writes
   * nothing. An insert that loses its place to another writer starts the round over from the new last entry. Returns
   * the decision with the position it was made at and the entries this call wrote, in ledger order (its own last).
   */
  async function append<D extends Decision>(
    accountId: string,
    customerId: string,
    decide: (position: Position) => D | Promise<D>,
  ): Promise<D & { position: Position; written: EntryDoc[] }> {
    const written: EntryDoc[] = [];
    for (;;) {
      const position = await positionOf(accountId, customerId);
      const due = dueStep(position.state, billingNow(accountId));
      if (due) {
        // A payment's next part repeats its invoice and total (a payment in progress is the last entry); the insert
        // that loses is someone else's same entry. An expiration says when its grant expired.
        const payment = due.type === "Usage" && position.last ? paymentFieldsOf(position.last) : {};
        const expired = due.type === "Expiration" ? expiryOf(position.state, due.grantId) : undefined;
        const entry = entryOf(accountId, customerId, due, { ...payment, ...(expired && { effectiveAt: expired }) });
        if (await commit(entry)) written.push(entry);
        continue;
      }
      const decision = await decide(position);
      if (!("entry" in decision)) return { ...decision, position, written };
      if (await commit(decision.entry)) return { ...decision, position, written: [...written, decision.entry] };
    }
  }

  /** The settled position and the due entries this call wrote to reach it. */
  async function settle(accountId: string, customerId: string) {
    const { position, written } = await append(accountId, customerId, () => ({ answer: undefined }));
    return { ...position, written };
  }

  /**
   * The last entry of the payment `part` belongs to, with the entries written to reach it: at domain
   * `paymentEndSeq`; when parts are still pending after `part`, settling writes them, and the entry at that place is
   * taken from what settling wrote or read last, else read (another writer went past it meanwhile).
   */
  async function paymentEnd(accountId: string, customerId: string, part: EntryDoc) {
    const endSeq = paymentEndSeq(stateAfter(part));
    if (endSeq === part.seq) return { end: part, written: [] };
    const { last, written } = await settle(accountId, customerId);
    const end =
      [last, ...written].find((entry) => entry?.seq === endSeq) ??
      (await entries.findOne({ accountId, customerId, seq: endSeq }, { projection: STATE_FIELDS }));
    if (!end) throw new Error(`the ledger has no entry at ${endSeq} after settling`);
    return { end, written };
  }

  /** A grant's `Grant` entry after `state` (domain `grantStep`: throws when the ledger refuses the grant). */
  function grantEntry(
    accountId: string,
    customerId: string,
    state: LedgerState,
    { micros, terms }: { micros: number; terms: GrantTerms },
    references: EntryReferences,
    _id = new ObjectId(),
  ): EntryDoc {
    const { effectiveAt, expiresAt, priority, currency } = terms;
    const step = grantStep(state, {
      grantId: _id.toHexString(),
      amountMicros: micros,
      effectiveAt,
      expiresAt,
      priority,
      currency,
    });
    const termFields = { effectiveAt, ...(expiresAt && { expiresAt }), priority };
    return entryOf(accountId, customerId, step, { _id, ...referencesOf(references), ...termFields });
  }

  /** The payment of an invoice, if credits paid any of it: the micro-units of all its `Usage` entries together. */
  async function paymentOf(accountId: string, customerId: string, invoiceId: string): Promise<number | undefined> {
    const filter = { accountId, customerId, type: "Usage" as const, invoiceId };
    const entry = await entries.findOne(filter, { projection: STATE_FIELDS });
    return entry ? paymentTotalOf(entry) : undefined;
  }

  /** The grant an entry moved, with its terms as its `Grant` entry set them (an entry from before terms: its own). */
  async function grantOf(accountId: string, entry: EntryDoc): Promise<Omit<OpenGrant, "remainingMicros">> {
    const grantEntry = entry.grantId ? await entries.findOne({ _id: toObjectId(entry.grantId), accountId }) : null;
    if (!grantEntry) {
      // As legacyGrants reads a balance from before grants had terms: never expiring, always effective.
      const grantId = entry.grantId ?? entry._id.toHexString();
      const legacyTerms = {
        effectiveAt: new Date(0),
        expiresAt: undefined,
        priority: GRANT_PRIORITY.default,
        currency: DEFAULT_CURRENCY,
      };
      return { grantId, seq: entry.seq, amountMicros: -entry.amountMicros, ...legacyTerms };
    }
    return {
      grantId: grantEntry._id.toHexString(),
      seq: grantEntry.seq,
      amountMicros: grantEntry.amountMicros,
      effectiveAt: grantEntry.effectiveAt ?? new Date(0),
      expiresAt: grantEntry.expiresAt,
      priority: grantEntry.priority ?? GRANT_PRIORITY.default,
      currency: grantEntry.currency ?? DEFAULT_CURRENCY,
    };
  }

  /**
   * Micro-units an invoice's `Usage` entries took from each grant and are not given back yet by its `Reversal`
   * entries, in the order the grants were burned.
   */
  async function unreversedOf(accountId: string, customerId: string, invoiceId: string) {
    const of = (type: "Usage" | "Reversal") =>
      entries.find({ accountId, customerId, invoiceId, type }, { projection: STATE_FIELDS }).sort({ seq: 1 }).toArray();
    const [usage, reversals] = await Promise.all([of("Usage"), of("Reversal")]);
    const owed = new Map<string, { entry: EntryDoc; micros: number }>();
    for (const entry of usage) {
      const key = entry.grantId ?? entry._id.toHexString();
      owed.set(key, { entry, micros: (owed.get(key)?.micros ?? 0) - entry.amountMicros });
    }
    for (const entry of reversals) {
      const key = entry.grantId ?? entry._id.toHexString();
      const left = owed.get(key);
      if (left) left.micros -= entry.amountMicros;
    }
    return [...owed.values()].filter(({ micros }) => micros > 0);
  }

  return {
    async ensureIndexes() {
      // Unique: one entry per place in a customer's ledger. Also serves the last entry and ledger-order pages.
      await entries.createIndex({ accountId: 1, customerId: 1, seq: 1 }, { unique: true });
      // Finds the usage entries of an invoice (payInvoice, paymentOf).
      await entries.createIndex({ accountId: 1, customerId: 1, invoiceId: 1, type: 1, seq: 1 });
      // The webhook sweep's reading of recent entries.
      await entries.createIndex({ createdAt: 1 });
      // The expiries that have come, for billing runs.
      await expiries.createIndex({ accountId: 1, expiresAt: 1 });
    },

    /**
     * Adds a grant; throws the domain's TooManyGrantsError or BalanceCeilingError when the ledger it meets refuses
     * it. A grant that expires is first noted for billing runs (and the note removed if the grant is refused): no
     * grant exists whose expiry a run cannot find.
     */
    async grant(accountId: string, input: CreditGrant & { currency: string }, now = billingNow(accountId)) {
      const { customerId, amount, type, effectiveAt, expiresAt, priority, currency, ...references } = input;
      const key = customerKey(customerId);
      const terms = grantTermsOf({ effectiveAt, expiresAt, priority, currency }, now);
      const expiry: ExpiryDoc | undefined = terms.expiresAt && {
        _id: new ObjectId(),
        accountId,
        customerId: key,
        expiresAt: terms.expiresAt,
      };
      if (expiry) await expiries.insertOne(expiry);
      try {
        const grant = { micros: toMicros(amount), terms };
        const { entry, written } = await append(accountId, key, ({ state }) => ({
          entry: grantEntry(accountId, key, state, grant, references),
        }));
        return { entry: toEntry(entry), written: written.map(toEntry) };
      } catch (error) {
        // Refused before anything was written (services/credit-ledger.ts answers 409): its expiry note goes too.
        if (expiry && (error instanceof TooManyGrantsError || error instanceof BalanceCeilingError)) {
          await expiries.deleteOne({ _id: expiry._id });
        }
        throw error;
      }
    },

    /**
     * The `Grant` a credit note with `refund: CREDITS` makes: effective at `now`, never expiring, default priority,
     * `creditNoteId` set. Its entry takes the credit note's id, so it is written once however often this runs (a
     * credit note completed after a crash): a later call finds it and writes nothing. Throws the domain's ceiling
     * errors as `grant` does.
     */
    async grantCreditNote(
      accountId: string,
      rawCustomerId: string,
      { creditNoteId, micros, currency, now }: { creditNoteId: string; micros: number; currency: string; now: Date },
    ) {
      const customerId = customerKey(rawCustomerId);
      const _id = toObjectId(creditNoteId);
      if (!_id) throw new RangeError(`a credit note id is an ObjectId, not ${creditNoteId}`);
      const terms = grantTermsOf({ currency }, billingNow(accountId, now));
      const granting = await append(accountId, customerId, async ({ state }) => {
        const existing = await entries.findOne({ _id, accountId }, { projection: STATE_FIELDS });
        if (existing) return { answer: existing };
        return { entry: grantEntry(accountId, customerId, state, { micros, terms }, { creditNoteId }, _id) };
      });
      const entry = ("entry" in granting ? granting.entry : granting.answer) as EntryDoc;
      return { entry: toEntry(entry), written: granting.written.map(toEntry) };
    },

    /**
     * Pays up to `maxMicros` of an invoice issued at `issuedAt` from the grants that may pay it, in burn order, one
     * `Usage` entry per grant, at most once per invoice: when the ledger already holds the invoice's payment, that
     * payment is returned and nothing is debited again. The check comes after reading the settled position: a payment
     * committed before that read is seen here, and one committed after it takes the place this payment prepares,
     * so this commit fails and the next round sees it. So concurrent billing runs and a run repeated after a crash
     * pay once. Returns the micro-units paid (whole cents) and the payment's last entry, whoever wrote it (its balance
     * after tells whether the payment emptied the balance), both undefined when nothing was paid.
     */
    async payInvoice(
      accountId: string,
      rawCustomerId: string,
      payment: InvoiceToPay & { invoiceId: string; contractId?: string; maxMicros: number },
    ): Promise<PaymentOutcome> {
      const { invoiceId, contractId, maxMicros } = payment;
      const customerId = customerKey(rawCustomerId);
      const filter = { accountId, customerId, type: "Usage" as const, invoiceId };
      const paying = await append(accountId, customerId, async ({ state }) => {
        // The invoice's latest part (with its state: the parts pending after it tell where the payment ends).
        const paid = await entries.findOne(filter, { sort: { seq: -1 } });
        if (paid) return { answer: paid };
        const burns = burnPlan(state.grants, payment, maxMicros);
        const step = paymentStep(state, burns);
        if (!step) return { answer: undefined };
        const paymentMicros = burns.reduce((sum, burn) => sum + burn.micros, 0);
        return {
          entry: entryOf(accountId, customerId, step, { ...referencesOf({ invoiceId, contractId }), paymentMicros }),
        };
      });
      const part = "entry" in paying ? paying.entry : paying.answer;
      if (!part) return { spentMicros: undefined, lastEntry: undefined, written: paying.written.map(toEntry) };
      // The payment `part` belongs to, its remaining parts written first (now rather than at the next movement).
      const completed = await paymentEnd(accountId, customerId, part);
      return {
        spentMicros: paymentTotalOf(part),
        lastEntry: toEntry(completed.end),
        written: [...paying.written, ...completed.written].map(toEntry),
      };
    },

    paymentOf: (accountId: string, customerId: string, invoiceId: string) =>
      paymentOf(accountId, customerKey(customerId), invoiceId),

    /**
     * What credits could pay of the invoice, whole minor units of its currency, as the ledger stands now with its due
     * entries applied in memory: nothing is written (previews store nothing).
     */
    async payableToInvoiceMicros(accountId: string, customerId: string, invoice: InvoiceToPay): Promise<number> {
      const { state } = await positionOf(accountId, customerKey(customerId));
      return payableMicros(settled(state, billingNow(accountId)).grants, invoice);
    },

    /** Entries written at or after `since`, across accounts, oldest first: for the webhook sweep. */
    createdSince(since: Date, limit: number) {
      return changedSince(entries, "createdAt", since, limit, toEntry);
    },

    /** The settled balance in micro-units and the grants with money left, in burn order. */
    async balance(
      accountId: string,
      customerId: string,
    ): Promise<{ balanceMicros: number; grants: OpenGrant[] } & Written> {
      const { state, written } = await settle(accountId, customerKey(customerId));
      return { balanceMicros: state.balanceMicros, grants: inBurnOrder(state.grants), written: written.map(toEntry) };
    },

    /**
     * Gives back what credits paid of a voided invoice: one `Reversal` entry per grant its `Usage` entries took from,
     * each decided at a settled position after reading what is still owed there, so a repeated or concurrent call
     * writes each once. A grant expired by now expires again at once: the settling after the last reversal writes its
     * `Expiration`. Returns the invoice's reversals written by this call, and every entry it wrote.
     */
    async reverseInvoice(accountId: string, rawCustomerId: string, invoiceId: string) {
      const customerId = customerKey(rawCustomerId);
      const written: EntryDoc[] = [];
      for (;;) {
        const reversing = await append(accountId, customerId, async ({ state }) => {
          const [owed] = await unreversedOf(accountId, customerId, invoiceId);
          if (!owed) return { answer: undefined };
          const step = reversalStep(state, await grantOf(accountId, owed.entry), owed.micros);
          return { entry: entryOf(accountId, customerId, step, { invoiceId }) };
        });
        written.push(...reversing.written);
        if (!("entry" in reversing)) break;
      }
      written.push(...(await settle(accountId, customerId)).written);
      return {
        reversals: written.filter((entry) => entry.type === "Reversal").map(toEntry),
        written: written.map(toEntry),
      };
    },

    /**
     * Voids what is left of a grant with a `Void` entry, after the due entries (a grant that has expired has
     * nothing left to void). Voiding twice, or concurrently, writes one entry: the others find nothing left.
     */
    async void(accountId: string, entryId: string): Promise<VoidOutcome> {
      const _id = toObjectId(entryId);
      const target = _id && (await entries.findOne({ _id, accountId }, { projection: STATE_FIELDS }));
      if (!target) return { refused: "not-found", written: [] };
      const voiding = await append(accountId, target.customerId, ({ state }) => {
        const step = voidStep(state, target._id.toHexString());
        if (step) return { entry: entryOf(accountId, target.customerId, step) };
        return { answer: target.type === "Grant" ? ("nothing-left" as const) : ("not-a-grant" as const) };
      });
      const written = voiding.written.map(toEntry);
      return voiding.entry === undefined
        ? { refused: voiding.answer, written }
        : { entry: toEntry(voiding.entry), written };
    },

    /**
     * Writes the account's expirations that have come by `now`, for the customers of at most `limit` expiries (the
     * earliest first), so that the ledger shows them without waiting for the customer's next movement or read.
     * Returns whether more may be due, and what was written.
     */
    async expireDue(accountId: string, now: Date, limit: number): Promise<{ more: boolean } & Written> {
      const due = await expiries
        .find({ accountId, expiresAt: { $lte: now } })
        .sort({ expiresAt: 1 })
        .limit(limit + 1)
        .toArray();
      const written: EntryDoc[] = [];
      for (const expiry of due.slice(0, limit)) {
        written.push(...(await settle(accountId, expiry.customerId)).written);
        await expiries.deleteOne({ _id: expiry._id });
      }
      return { more: due.length > limit, written: written.map(toEntry) };
    },

    /**
     * The earliest expiry of the account not yet written that comes after `after` (any, when undefined): where a test
     * clock's advance stops to write it (services/billing/test-clock/due-work.ts).
     */
    async nextExpiry(accountId: string, after: Date | undefined): Promise<Date | undefined> {
      const filter = { accountId, ...(after && { expiresAt: { $gt: after } }) };
      return (await expiries.findOne(filter, { sort: { expiresAt: 1 }, projection: { expiresAt: 1 } }))?.expiresAt;
    },

    /**
     * A page of the customer's ledger in ledger order, after the entry whose id is the cursor, due entries written
     * first. Entries are only ever appended at the end, so a walk never skips one.
     */
    async list(
      accountId: string,
      rawCustomerId: string,
      page: PageRequest,
    ): Promise<{ entries: CreditLedgerEntry[] } & Written> {
      const customerId = customerKey(rawCustomerId);
      const cursor = await resolveIdCursor(entries, { accountId, customerId }, page.cursor);
      const { written } = await settle(accountId, customerId);
      const docs = await entries
        .find({ accountId, customerId, seq: { $gt: cursor?.seq ?? 0 } }, { projection: STATE_FIELDS })
        .sort({ seq: 1 })
        .limit(page.limit)
        .toArray();
      return { entries: docs.map(toEntry), written: written.map(toEntry) };
    },
  };
}
export type CreditRepository = ReturnType<typeof createCreditRepository>;
