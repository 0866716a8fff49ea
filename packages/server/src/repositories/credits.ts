import { ObjectId, type Db } from "mongodb";
import { fromMicros, toMicros, type CreditEntryType, type CreditGrant, type CreditLedgerEntry } from "@billing/shared";
import { iso, toObjectId } from "../db/ids.js";
import { resolveIdCursor, type PageRequest } from "../db/pagination.js";
import { floorToCents } from "../domain/billing/amounts.js";
import { nextEntry, type LedgerPosition, type Movement } from "../domain/ledger.js";
import { isDuplicateKeyError } from "../db/duplicate-key.js";

interface EntryReferences {
  contractId?: string | undefined;
  invoiceId?: string | undefined;
  erpId?: string | undefined;
}

/** A ledger entry as stored: `seq` (1, 2, … per customer) is its place in the ledger, `balanceAfterMicros` the balance there. */
interface EntryDoc extends EntryReferences {
  _id: ObjectId;
  accountId: string;
  customerId: string;
  seq: number;
  type: CreditEntryType;
  amountMicros: number;
  balanceAfterMicros: number;
  createdAt: Date;
}

/** The references that are set (the driver would store an undefined one as null). */
const referencesOf = ({ contractId, invoiceId, erpId }: EntryReferences): EntryReferences => ({
  ...(contractId !== undefined && { contractId }),
  ...(invoiceId !== undefined && { invoiceId }),
  ...(erpId !== undefined && { erpId }),
});

const toEntry = ({ _id, customerId, createdAt, type, amountMicros, balanceAfterMicros, ...doc }: EntryDoc): CreditLedgerEntry => ({
  id: _id.toHexString(),
  customerId,
  createdAt: iso(createdAt),
  type,
  amount: fromMicros(amountMicros),
  balanceAfterEntry: fromMicros(balanceAfterMicros),
  // Integration entities come from CRM sync, which no operation of the spec performs: none so far.
  integrationEntities: [],
  ...referencesOf(doc),
});

/** The canonical (lowercase) form of a customer id, so `ABC…` and `abc…` name one ledger. */
const customerKey = (customerId: string) => toObjectId(customerId)?.toHexString() ?? customerId;

/**
 * The credit ledger: an append-only collection where each entry carries the balance after it, and the unique
 * index on (account, customer, seq) is the only point of serialization. A movement reads the last entry,
 * prepares the next one (seq + 1, balance + amount) and inserts it; if another movement took that place first,
 * the insert fails on the unique index and the movement starts over from the new last entry.
 *
 * One insert is the whole movement, so no crash can leave a balance without its entry or the reverse: the
 * balance *is* the last entry's `balanceAfterMicros`. No separate balance document is updated in place,
 * because FerretDB 1.24 (SQLite) applies concurrent updates of one document as read-modify-write and loses
 * some (50 concurrent `$inc` of 1 were measured to add 10); unique-index inserts stay exact on both engines.
 */
export function createCreditRepository(db: Db) {
  const entries = db.collection<EntryDoc>("credit_entries");

  async function positionOf(accountId: string, customerId: string): Promise<LedgerPosition> {
    const last = await entries.findOne({ accountId, customerId }, { sort: { seq: -1 } });
    return last ? { seq: last.seq, balanceMicros: last.balanceAfterMicros } : { seq: 0, balanceMicros: 0 };
  }

  /** First step of a movement (no write): the entry that would follow the current last one, if any. */
  async function prepare(accountId: string, rawCustomerId: string, movement: Movement, references: EntryReferences = {}) {
    const customerId = customerKey(rawCustomerId);
    const next = nextEntry(await positionOf(accountId, customerId), movement);
    return next && { _id: new ObjectId(), accountId, customerId, ...next, ...referencesOf(references), createdAt: new Date() };
  }

  /** Second and last step: writes the entry, or returns false when another movement took its place first. */
  async function commit(entry: EntryDoc): Promise<boolean> {
    try {
      await entries.insertOne(entry);
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }

  /** Retries from the new position until the entry lands; each retry means another movement succeeded. */
  async function append(accountId: string, customerId: string, movement: Movement, references: EntryReferences) {
    for (;;) {
      const entry = await prepare(accountId, customerId, movement, references);
      if (!entry) return undefined;
      if (await commit(entry)) return toEntry(entry);
    }
  }

  return {
    async ensureIndexes() {
      // Unique: one entry per place in a customer's ledger. Also serves the last entry and ledger-order pages.
      await entries.createIndex({ accountId: 1, customerId: 1, seq: 1 }, { unique: true });
      // Finds the usage entry of an invoice (spendOnInvoice, paymentOf).
      await entries.createIndex({ accountId: 1, customerId: 1, invoiceId: 1, type: 1 });
      // The webhook sweep's reading of recent entries.
      await entries.createIndex({ createdAt: 1 });
    },

    prepare,
    commit,

    /** Adds credits; 409 when the balance would pass its ceiling of 1e9 USD (see nextEntry). */
    async grant(accountId: string, { customerId, amount, type, ...references }: CreditGrant): Promise<CreditLedgerEntry> {
      // A grant always moves the balance (amount > 0), so an entry is always made.
      return (await append(accountId, customerId, { type, micros: toMicros(amount) }, references))!;
    },

    /**
     * Pays up to `maxMicros` of an invoice from the balance's whole cents, at most once per invoice: when
     * the ledger already holds the invoice's usage entry, that entry is returned and nothing is debited again.
     * The check comes after reading the ledger position: an entry committed before that read is seen here, and
     * one committed after it takes the place this movement prepares, so this commit fails and the next round
     * sees it. So concurrent billing runs and a run repeated after a crash debit once. Undefined: nothing paid.
     */
    async spendOnInvoice(
      accountId: string,
      rawCustomerId: string,
      { invoiceId, contractId, maxMicros }: { invoiceId: string; contractId?: string; maxMicros: number },
    ): Promise<CreditLedgerEntry | undefined> {
      const customerId = customerKey(rawCustomerId);
      for (;;) {
        const position = await positionOf(accountId, customerId);
        const spent = await entries.findOne({ accountId, customerId, type: "Usage", invoiceId });
        if (spent) return toEntry(spent);
        // Invoices are paid in whole cents: a sub-cent rest of the balance stays on it.
        const payable = Math.min(maxMicros, floorToCents(position.balanceMicros));
        if (payable <= 0) return undefined;
        const next = nextEntry(position, { type: "Usage", micros: payable });
        if (!next) return undefined;
        const entry: EntryDoc = { _id: new ObjectId(), accountId, customerId, ...next, ...referencesOf({ invoiceId, contractId }), createdAt: new Date() };
        if (await commit(entry)) return toEntry(entry);
      }
    },

    /** The invoice's payment (its `Usage` entry), if credits paid any of it. */
    async paymentOf(accountId: string, customerId: string, invoiceId: string): Promise<CreditLedgerEntry | undefined> {
      const entry = await entries.findOne({ accountId, customerId: customerKey(customerId), type: "Usage", invoiceId });
      return entry ? toEntry(entry) : undefined;
    },

    /** Entries written at or after `since`, across accounts, oldest first: for the webhook sweep. */
    async createdSince(since: Date, limit: number) {
      const docs = await entries.find({ createdAt: { $gte: since } }).sort({ createdAt: 1 }).limit(limit).toArray();
      return docs.map((doc) => ({ accountId: doc.accountId, at: doc.createdAt, entry: toEntry(doc) }));
    },

    /** The balance in micro-units: the balance after the last entry. */
    async balanceOf(accountId: string, customerId: string): Promise<number> {
      return (await positionOf(accountId, customerKey(customerId))).balanceMicros;
    },

    /**
     * A page of the customer's ledger in ledger order, after the entry whose id is the cursor. Entries are
     * only ever appended at the end, so a walk never skips one.
     */
    async list(accountId: string, rawCustomerId: string, page: PageRequest): Promise<CreditLedgerEntry[]> {
      const customerId = customerKey(rawCustomerId);
      const cursor = await resolveIdCursor(entries, { accountId, customerId }, page.cursor);
      const docs = await entries
        .find({ accountId, customerId, seq: { $gt: cursor?.seq ?? 0 } })
        .sort({ seq: 1 })
        .limit(page.limit)
        .toArray();
      return docs.map(toEntry);
    },
  };
}
export type CreditRepository = ReturnType<typeof createCreditRepository>;
