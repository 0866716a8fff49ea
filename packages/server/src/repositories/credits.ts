import type { CreditLedgerEntry } from "@billing/shared";
import { type Db, ObjectId } from "mongodb";
import { billingNow } from "../billing-clock.js";
import { changedSince } from "../db/changed-since.js";
import { canonicalId, toObjectId } from "../db/ids.js";
import { after, type PageRequest, resolveIdCursor } from "../db/pagination.js";
import {
  burnPlan,
  type GrantTerms,
  grantOfEntry,
  grantTermsOf,
  type InvoiceToPay,
  type OpenGrant,
} from "../domain/grants.js";
import {
  grantStep,
  type LedgerState,
  paymentStep,
  reversalStep,
  settled,
  unreversedByGrant,
  voidStep,
} from "../domain/ledger.js";
import { asMicros, type Micros, sumMicros } from "../domain/money/micros.js";
import {
  type EntryDoc,
  type EntryReferences,
  grantKeyOf,
  newEntryDoc,
  type PaymentOutcome,
  type PeriodFields,
  paymentTotalOf,
  periodFieldsOf,
  referencesOf,
  stateAfter,
  toEntry,
  type VoidOutcome,
  type Written,
} from "../presenters/stored-credits.js";
import { createGrantCustomers } from "./credit-grant-customers.js";
import { createLedgerLog, type Position, type PositionGuesses, STATE_FIELDS } from "./credit-ledger-log.js";
import type { Hooks } from "./hooks.js";

/**
 * Entries one read of many customers' ledger ends takes (`positionsFrom`): a batch's customers (at most 100), each
 * with the few entries written since a pass last read its ledger, with room to spare.
 */
const MAX_ENTRIES_FROM = 1_000;

/**
 * The credit ledger: an append-only collection where each entry carries the state after it (balance, grants with
 * money left, a payment's parts still to write), and the unique index on (account, customer, seq) is the only
 * point of serialization. A movement reads the last entry, computes the next one (domain/ledger.ts) and inserts it
 * at seq + 1; if another movement took that place first, the insert fails on the unique index and the movement
 * starts over from the new last entry. So every race (payments, expirations, voids, grants; several instances) is
 * decided by one insert, and no entry takes more from a grant than the state it follows says the grant holds.
 *
 * Before its own entry, every movement writes what is due: the rest of a payment, then the expirations that have
 * come. Reads write nothing: the ledger's readers settle it first (`settle`, see services/credit-ledger.ts). No
 * separate balance document is updated in place, because FerretDB 1.24 (SQLite) applies concurrent updates of one
 * document as read-modify-write and loses some; unique-index inserts stay exact.
 */
export function createCreditRepository(db: Db, hooks: Hooks) {
  const entries = db.collection<EntryDoc>("credit_entries");

  const { positionOf, append, settle, paymentEnd } = createLedgerLog(entries, hooks);
  const grantCustomers = createGrantCustomers(db, entries);

  /** A grant's `Grant` entry after `state` (domain `grantStep`: throws when the ledger refuses the grant). */
  function grantEntry(
    accountId: string,
    customerId: string,
    state: LedgerState,
    { micros, terms }: { micros: Micros; terms: GrantTerms },
    references: EntryReferences & PeriodFields,
    _id = new ObjectId(),
  ): EntryDoc {
    const { effectiveAt, expiresAt, priority } = terms;
    const step = grantStep(state, { ...terms, grantId: _id.toHexString(), amountMicros: micros });
    const termFields = { effectiveAt, ...(expiresAt && { expiresAt }), priority };
    const period = periodFieldsOf(references);
    return newEntryDoc(accountId, customerId, step, { _id, ...referencesOf(references), ...termFields, ...period });
  }

  /** The account's entry document `entryId` (a grant's through its customer's pointer on a cluster), or undefined. */
  const owned = (accountId: string, entryId: string) =>
    grantCustomers.findOwned(accountId, toObjectId(entryId), { projection: STATE_FIELDS });

  /** The payment of an invoice, if credits paid any of it: the micro-units of all its `Usage` entries together. */
  async function paymentOf(accountId: string, customerId: string, invoiceId: string): Promise<number | undefined> {
    const filter = { accountId, customerId, type: "Usage" as const, invoiceId };
    const entry = await entries.findOne(filter, { projection: STATE_FIELDS });
    return entry ? paymentTotalOf(entry) : undefined;
  }

  /** The grant an entry moved, with its terms as its `Grant` entry set them (an entry from before terms: its own). */
  async function grantOf(accountId: string, entry: EntryDoc): Promise<Omit<OpenGrant, "remainingMicros">> {
    const grantId = entry.grantId === undefined ? undefined : toObjectId(entry.grantId);
    // The grant's entry is the entry's customer's: read with the collection's shard key, routed on a cluster.
    const grantEntry = grantId && (await entries.findOne({ _id: grantId, accountId, customerId: entry.customerId }));
    if (grantEntry) return grantOfEntry({ ...grantEntry, grantId: grantEntry._id.toHexString() });
    // A balance from before grants had entries of their own: the entry's grant is made of what it moved.
    return grantOfEntry({ grantId: grantKeyOf(entry), seq: entry.seq, amountMicros: asMicros(-entry.amountMicros) });
  }

  /** What an invoice's `Usage` entries took from each grant, less its `Reversal` entries, in burn order (µ). */
  async function unreversedOf(accountId: string, customerId: string, invoiceId: string) {
    const of = (type: "Usage" | "Reversal") =>
      entries.find({ accountId, customerId, invoiceId, type }, { projection: STATE_FIELDS }).sort({ seq: 1 }).toArray();
    const [usage, reversals] = await Promise.all([of("Usage"), of("Reversal")]);
    return unreversedByGrant(usage, reversals, grantKeyOf);
  }

  /**
   * Pays up to `maxMicros` of what `key` names (an invoice, or a money reservation) from the grants that may pay it,
   * in burn order, one `Usage` entry per grant, at most once per key: when the ledger already holds the key's
   * payment, that payment is returned and nothing is debited again. The check comes after reading the settled
   * position: a payment committed before that read is seen here, and one committed after it takes the place this
   * payment prepares, so this commit fails and the next round sees it.
   *
   * An invoice's payment also takes the invoice's id as its first entry's `_id`, which the ledger holds once: so a
   * caller that knows no earlier try can have paid with another id (`unpaidBefore`: see payInvoice) skips the look
   * in its first round — a payment of the invoice committed meanwhile, whoever wrote it, refuses this insert by its
   * `_id` or by its place, and the next round looks.
   */
  async function payOnce(
    accountId: string,
    customerId: string,
    key: { invoiceId: string; contractId?: string | undefined } | { reservationId: string },
    payment: InvoiceToPay & { maxMicros: Micros },
    guesses?: PositionGuesses,
    unpaidBefore = false,
  ): Promise<PaymentOutcome> {
    const { maxMicros } = payment;
    const filter =
      "invoiceId" in key
        ? { accountId, customerId, type: "Usage" as const, invoiceId: key.invoiceId }
        : { accountId, customerId, type: "Usage" as const, reservationId: key.reservationId };
    const paymentId = "invoiceId" in key ? toObjectId(key.invoiceId) : undefined;
    let look = !(unpaidBefore && paymentId);
    const paying = await append(
      accountId,
      customerId,
      async (position) => {
        const { state } = position;
        // The key's latest part (with its state: the parts pending after it tell where the payment ends); an
        // empty ledger has none.
        const paid = look && position.last && (await entries.findOne(filter, { sort: { seq: -1 } }));
        look = true;
        if (paid) return { answer: paid };
        const burns = burnPlan(state.grants, payment, maxMicros);
        const step = paymentStep(state, burns);
        if (!step) return { answer: undefined };
        const paymentMicros = sumMicros(burns.map((burn) => burn.micros));
        const fields = { ...referencesOf(key), paymentMicros, ...(paymentId && { _id: paymentId }) };
        return { entry: newEntryDoc(accountId, customerId, step, fields) };
      },
      guesses,
    );
    const part = "entry" in paying ? paying.entry : paying.answer;
    if (!part) return { spentMicros: undefined, lastEntry: undefined, written: paying.written.map(toEntry) };
    // The payment `part` belongs to, its remaining parts written first (now rather than at the next movement).
    const completed = await paymentEnd(accountId, customerId, part);
    return {
      spentMicros: paymentTotalOf(part),
      lastEntry: toEntry(completed.end),
      written: [...paying.written, ...completed.written].map(toEntry),
    };
  }

  /**
   * A `Grant` entry whose id is given (a credit note's, a recurring grant's period), written once however often or
   * concurrently this runs: the id is looked for at each settled position, and the ledger's unique `_id` refuses a
   * second insert, so a later or losing call finds it and writes nothing (`issued: false`). Throws the domain's
   * ceiling errors as `grant` does.
   */
  async function grantOnce(
    accountId: string,
    rawCustomerId: string,
    id: string,
    grant: { micros: Micros; terms: GrantTerms },
    fields: EntryReferences & PeriodFields,
  ) {
    const customerId = canonicalId(rawCustomerId);
    const _id = toObjectId(id);
    if (!_id) throw new RangeError(`a grant's given id is an ObjectId, not ${id}`);
    const granting = await append(accountId, customerId, async ({ state }) => {
      const existing = await entries.findOne({ _id, accountId, customerId }, { projection: STATE_FIELDS });
      if (existing) return { answer: existing };
      return { entry: grantEntry(accountId, customerId, state, grant, fields, _id) };
    });
    const entry = ("entry" in granting ? granting.entry : granting.answer) as EntryDoc;
    await grantCustomers.note([entry]);
    return { entry: toEntry(entry), issued: "entry" in granting, written: granting.written.map(toEntry) };
  }

  return {
    async ensureIndexes() {
      // Unique: one entry per place in a customer's ledger. Also serves the last entry and ledger-order pages.
      await entries.createIndex({ accountId: 1, customerId: 1, seq: 1 }, { unique: true });
      // Finds the usage entries of an invoice (payInvoice, paymentOf).
      await entries.createIndex({ accountId: 1, customerId: 1, invoiceId: 1, type: 1, seq: 1 });
      // Finds the usage entries of a money reservation's settlement (payReservation).
      await entries.createIndex({ accountId: 1, customerId: 1, reservationId: 1, type: 1, seq: 1 });
      // What a recurring grant's period left when it expired (expiredMicros).
      await entries.createIndex({ accountId: 1, customerId: 1, grantId: 1, type: 1 });
      // The webhook sweep's reading of recent entries.
      await entries.createIndex({ createdAt: 1 });
      // The ledger export: an account's entries written in a window, in (createdAt, _id) order.
      await entries.createIndex({ accountId: 1, createdAt: 1, _id: 1 });
      await grantCustomers.ensureIndexes();
    },
    noteStoredGrantCustomers: () => grantCustomers.noteStored(),

    /**
     * Adds a grant of `micros` on `terms`; throws the domain's TooManyGrantsError or BalanceCeilingError when the
     * ledger it meets refuses it.
     */
    async grant(
      accountId: string,
      rawCustomerId: string,
      grant: { micros: Micros; terms: GrantTerms },
      references: EntryReferences,
    ) {
      const customerId = canonicalId(rawCustomerId);
      const { entry, written } = await append(accountId, customerId, ({ state }) => ({
        entry: grantEntry(accountId, customerId, state, grant, references),
      }));
      await grantCustomers.note([entry]);
      return { entry: toEntry(entry), written: written.map(toEntry) };
    },

    /**
     * The `Grant` a credit note with `refund: CREDITS` makes: effective at `now`, never expiring, default priority,
     * `creditNoteId` set, its entry's id the credit note's (see grantOnce). Throws the ceiling errors as `grant` does.
     */
    grantCreditNote(
      accountId: string,
      customerId: string,
      { creditNoteId, micros, currency, now }: { creditNoteId: string; micros: Micros; currency: string; now: Date },
    ) {
      const terms = grantTermsOf({ currency }, billingNow(accountId, now));
      return grantOnce(accountId, customerId, creditNoteId, { micros, terms }, { creditNoteId });
    },

    /** A `Grant` entry whose id is given (a recurring grant's period: see grantOnce). */
    grantOnce,

    /** Micro-units the `Expiration` entries of these grants removed (what they left when they expired). */
    async expiredMicros(accountId: string, customerId: string, grantIds: string[]): Promise<Micros> {
      const filter = { accountId, customerId: canonicalId(customerId), grantId: { $in: grantIds } };
      const expired = await entries.find({ ...filter, type: "Expiration" }, { projection: STATE_FIELDS }).toArray();
      return asMicros(expired.reduce((sum, entry) => sum - entry.amountMicros, 0));
    },

    /**
     * Pays up to `maxMicros` of an invoice issued at `issuedAt` from the grants that may pay it, in burn order, one
     * `Usage` entry per grant, at most once per invoice: when the ledger already holds the invoice's payment, that
     * payment is returned and nothing is debited again. The check comes after reading the settled position: a payment
     * committed before that read is seen here, and one committed after it takes the place this payment prepares,
     * so this commit fails and the next round sees it. So concurrent billing runs and a run repeated after a crash
     * pay once. Returns the micro-units paid (whole cents) and the payment's last entry, whoever wrote it (its balance
     * after tells whether the payment emptied the balance), both undefined when nothing was paid. `unpaidBefore`: the
     * caller just opened the invoice's pending payment itself (a billing batch's), so no earlier try debited it.
     */
    async payInvoice(
      accountId: string,
      rawCustomerId: string,
      payment: InvoiceToPay & { invoiceId: string; contractId?: string; maxMicros: Micros },
      guesses?: PositionGuesses,
      unpaidBefore?: boolean,
    ): Promise<PaymentOutcome> {
      const { invoiceId, contractId, ...paid } = payment;
      return payOnce(accountId, canonicalId(rawCustomerId), { invoiceId, contractId }, paid, guesses, unpaidBefore);
    },

    /**
     * Takes a money reservation's settlement off the balance (payInvoice's rules, keyed by the reservation instead
     * of an invoice: `Usage` entries with `reservationId`), at most once however often or concurrently it runs.
     */
    payReservation: (
      accountId: string,
      rawCustomerId: string,
      payment: InvoiceToPay & { reservationId: string; maxMicros: Micros },
    ): Promise<PaymentOutcome> => {
      const { reservationId, ...paid } = payment;
      return payOnce(accountId, canonicalId(rawCustomerId), { reservationId }, paid);
    },

    paymentOf: (accountId: string, customerId: string, invoiceId: string) =>
      paymentOf(accountId, canonicalId(customerId), invoiceId),

    /** Which of these customers' ledgers have an entry (its first, seq 1): a billing batch's look, one read. */
    async customersWithEntries(accountId: string, customerIds: string[]): Promise<Set<string>> {
      if (customerIds.length === 0) return new Set();
      const found = await entries
        .find(
          { accountId, customerId: { $in: customerIds.map(canonicalId) }, seq: 1 },
          { projection: { customerId: 1 } },
        )
        .toArray();
      return new Set(found.map(({ customerId }) => customerId));
    },

    /**
     * Where each of these customers' ledgers stands (its last entry and the state after it), read together from a
     * lower bound of each last entry's seq (`from`: credit-ledger-hints.ts): the entries from there on, one command
     * for them all. Every customer or none: when more entries are there than one read takes (MAX_ENTRIES_FROM), none,
     * and each is read alone when asked.
     */
    async positionsFrom(accountId: string, from: Map<string, number>): Promise<Map<string, Position>> {
      if (from.size === 0) return new Map();
      const branches = [...from].map(([customerId, seq]) => ({ customerId, seq: { $gte: seq } }));
      const found = await entries.find({ accountId, $or: branches }).limit(MAX_ENTRIES_FROM).toArray();
      if (found.length === MAX_ENTRIES_FROM) return new Map();
      const last = new Map<string, EntryDoc>();
      for (const entry of found) {
        const before = last.get(entry.customerId);
        if (!before || before.seq < entry.seq) last.set(entry.customerId, entry);
      }
      return new Map([...last].map(([customerId, entry]) => [customerId, { last: entry, state: stateAfter(entry) }]));
    },

    /**
     * The balance in micro-units and the grants with money left as the ledger stands now, its due entries applied
     * in memory: nothing is written (see settle). `empty`: the customer's ledger has no entry at all.
     */
    async balance(accountId: string, customerId: string, guesses?: PositionGuesses, known?: Position) {
      const position = known ?? (await positionOf(accountId, canonicalId(customerId)));
      guesses?.set(canonicalId(customerId), position);
      const { last, state } = position;
      const { balanceMicros, grants } = settled(state, billingNow(accountId));
      return { balanceMicros, grants, empty: !last };
    },

    /**
     * Writes what is due on the customer's ledger (the rest of a payment, then the expirations that have come): the
     * state it leaves, and the entries this call wrote (see Written).
     */
    async settle(accountId: string, customerId: string): Promise<{ state: LedgerState } & Written> {
      const { state, written } = await settle(accountId, canonicalId(customerId));
      return { state, written: written.map(toEntry) };
    },

    /** Entries written at or after `since`, across accounts, oldest first: for the webhook sweep. */
    createdSince(since: Date, limit: number) {
      return changedSince(entries, "createdAt", since, limit, toEntry);
    },

    /**
     * Gives back what credits paid of a voided invoice: one `Reversal` entry per grant its `Usage` entries took from,
     * each decided at a settled position after reading what is still owed there, so a repeated or concurrent call
     * writes each once. A grant expired by now expires again at once: the settling after the last reversal writes its
     * `Expiration`. Returns the invoice's reversals written by this call, and every entry it wrote.
     */
    async reverseInvoice(accountId: string, rawCustomerId: string, invoiceId: string) {
      const customerId = canonicalId(rawCustomerId);
      const written: EntryDoc[] = [];
      for (;;) {
        const reversing = await append(accountId, customerId, async ({ state }) => {
          const [owed] = await unreversedOf(accountId, customerId, invoiceId);
          if (!owed) return { answer: undefined };
          const step = reversalStep(state, await grantOf(accountId, owed.entry), owed.micros);
          return { entry: newEntryDoc(accountId, customerId, step, { invoiceId }) };
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

    /** The account's entry `entryId` (undefined: none of the account's). */
    entry: (accountId: string, entryId: string) => owned(accountId, entryId).then((doc) => doc && toEntry(doc)),

    /**
     * Voids what is left of a grant with a `Void` entry, after the due entries (a grant that has expired has
     * nothing left to void). Voiding twice, or concurrently, writes one entry: the others find nothing left.
     */
    async void(accountId: string, entryId: string): Promise<VoidOutcome> {
      const target = await owned(accountId, entryId);
      if (!target) return { refused: "not-found", written: [] };
      const voiding = await append(accountId, target.customerId, ({ state }) => {
        const step = voidStep(state, target._id.toHexString());
        if (step) return { entry: newEntryDoc(accountId, target.customerId, step) };
        return { answer: target.type === "Grant" ? ("nothing-left" as const) : ("not-a-grant" as const) };
      });
      const written = voiding.written.map(toEntry);
      return voiding.entry === undefined
        ? { refused: voiding.answer, written }
        : { entry: toEntry(voiding.entry), written };
    },

    /**
     * A page of the customer's ledger as stored, in ledger order, after the entry whose id is the cursor (the caller
     * settles it first: see settle). Entries are only ever appended at the end, so a walk never skips one.
     */
    async list(accountId: string, rawCustomerId: string, page: PageRequest): Promise<CreditLedgerEntry[]> {
      const customerId = canonicalId(rawCustomerId);
      const cursor = await resolveIdCursor(entries, { accountId, customerId }, page.cursor);
      const docs = await entries
        .find({ accountId, customerId, seq: { $gt: cursor?.seq ?? 0 } }, { projection: STATE_FIELDS })
        .sort({ seq: 1 })
        .limit(page.limit)
        .toArray();
      return docs.map(toEntry);
    },

    /** The entries written in [from, to), by (createdAt, id), after `cursor`'s: one query, read on by the export. */
    async writtenIn(accountId: string, window: { from: Date; to: Date }, cursor: string | undefined, batch: number) {
      const scope = { accountId, createdAt: { $gte: window.from, $lt: window.to } };
      const last = await resolveIdCursor(entries, scope, cursor);
      const filter = last ? { $and: [scope, after("createdAt", last.createdAt, last._id)] } : scope;
      const docs = entries.find(filter, { projection: STATE_FIELDS }).sort({ createdAt: 1, _id: 1 });
      return docs.batchSize(batch).map(toEntry);
    },
  };
}
export type CreditRepository = ReturnType<typeof createCreditRepository>;
