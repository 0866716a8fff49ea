import type { Db, ObjectId } from "mongodb";
import { wonInsert, wonInserts } from "../db/duplicate-key.js";
import { routedById } from "../db/find-owned.js";
import { after } from "../db/pagination.js";
import type { InvoiceChange, RecordedPayment } from "../domain/invoices/life.js";
import type { MoneyChangeKind } from "../observability/metrics.js";

/** A FINALIZE or NUMBER is logged before its number is claimed (so no number is claimed for a change that loses). */
type Loggable<Change> = Change extends { kind: "FINALIZE" | "NUMBER" }
  ? Omit<Change, "number"> & { number?: string }
  : Change;

/** One entry of an invoice's change log: the invoice's `n`-th change (1, 2, …). */
export type LoggedInvoiceChange<Priced> = Loggable<InvoiceChange<Priced>> & { n: number };

type ChangeDoc<Priced> = LoggedInvoiceChange<Priced> & { _id: string; accountId: string; invoiceId: string };

type PaymentChange = { at: Date; payment: RecordedPayment };

/** The entry's `_id`: the invoice and the change's place, so two writers of the same place collide. */
const entryId = (invoiceId: string, n: number) => `${invoiceId}:${n}`;

const toChange = <Priced>({ _id, accountId: _account, invoiceId: _invoice, ...change }: ChangeDoc<Priced>) =>
  change as unknown as LoggedInvoiceChange<Priced>;

/** Counts a logged change that moves money: its kind, the invoice's currency, its amount in micro-units. */
export type CountMoneyChange = (kind: MoneyChangeKind, currency: string, micros: number) => void;

/**
 * What a change moves, in micro-units: a finalization its total, a payment its amount, a credit note its amount. A
 * NUMBER moves nothing now: its invoice was billed before the log existed.
 */
function moneyOf(change: LoggedInvoiceChange<unknown>): { kind: MoneyChangeKind; micros: number } | undefined {
  switch (change.kind) {
    case "FINALIZE":
      return { kind: change.kind, micros: change.totalMicros };
    case "PAYMENT":
      return { kind: change.kind, micros: change.payment.amount };
    case "CREDIT_NOTE":
      return {
        kind: change.kind,
        micros:
          change.offset + change.credits + (change.providerRefund?.refunds ?? []).reduce((sum, r) => sum + r.micros, 0),
      };
    case "NUMBER":
    case "VOID":
    case "UNCOLLECTIBLE":
      return undefined;
  }
}

/**
 * The per-invoice change log that decides every race on one invoice: a change is made by inserting the invoice's
 * next entry (n = its changeCount as last read + 1), and only one insert of a place succeeds. The invoice document
 * then takes the change's effect; an effect not written (a crash, a lost update) is replayed from here.
 */
export function createInvoiceChangeRepository<Priced>(db: Db, countMoneyChange: CountMoneyChange) {
  const changes = db.collection<ChangeDoc<Priced>>("invoiceChanges");

  /**
   * The credit notes of these invoices that corrected late usage (services/billing/late-corrections.ts), each
   * invoice's in log order: one read of their change logs (as `after` reads one; the index serves no more, and an
   * invoice takes at most MAX_CREDIT_NOTES_PER_INVOICE notes).
   */
  async function usageCorrectionsOf(accountId: string, invoiceIds: string[]) {
    const byInvoice = new Map(invoiceIds.map((id) => [id, [] as LoggedInvoiceChange<Priced>[]]));
    if (invoiceIds.length === 0) return byInvoice;
    const docs = await changes.find({ accountId, invoiceId: { $in: invoiceIds } } as never).toArray();
    for (const doc of docs.sort((a, b) => a.n - b.n))
      if (doc.kind === "CREDIT_NOTE" && doc.adjusts) byInvoice.get(doc.invoiceId)?.push(toChange(doc));
    return byInvoice;
  }

  return {
    async ensureIndexes() {
      await changes.createIndex({ accountId: 1, invoiceId: 1, n: 1 });
      // The payments export: an account's payments recorded in a window, in (at, _id) order.
      await changes.createIndex({ accountId: 1, kind: 1, at: 1, _id: 1 });
    },

    /**
     * The account's payments recorded in [from, to), by (at, entry id), after `cursor` (the last one's `at` and id):
     * one query left open, fetched `batchSize` at a time as the payments export reads on (the caller closes it).
     */
    async paymentsIn(
      accountId: string,
      window: { from: Date; to: Date },
      cursor: { at: Date; id: string } | undefined,
      batchSize: number,
    ) {
      const scope = { accountId, kind: "PAYMENT", at: { $gte: window.from, $lt: window.to } };
      // The entries' `_id`s are `<invoice>:<n>` strings: the keyset condition compares them as it compares ObjectIds.
      const filter = cursor ? { $and: [scope, after("at", cursor.at, cursor.id as unknown as ObjectId)] } : scope;
      return changes
        .find(filter as never, { projection: { invoiceId: 1, at: 1, payment: 1 } })
        .sort({ at: 1, _id: 1 })
        .batchSize(batchSize)
        .map((doc): { id: string; invoiceId: string; at: Date; payment: RecordedPayment } => {
          const { _id, invoiceId, at: recorded, payment } = doc as unknown as ChangeDoc<Priced> & PaymentChange;
          return { id: _id, invoiceId, at: recorded, payment };
        });
    },

    /**
     * Whether this insert took the place `change.n`: false when another change holds it. The insert that takes it
     * counts the change in the money metrics (once per entry, however often it is applied or its call retried), in
     * the invoice's `currency`.
     */
    async append(
      accountId: string,
      invoiceId: string,
      change: LoggedInvoiceChange<Priced>,
      currency: string,
    ): Promise<boolean> {
      const doc = { ...change, _id: entryId(invoiceId, change.n), accountId, invoiceId } as ChangeDoc<Priced>;
      const won = await wonInsert(changes.insertOne(doc as never));
      const money = won ? moneyOf(change) : undefined;
      if (money) countMoneyChange(money.kind, currency, money.micros);
      return won;
    },

    /** append of several invoices' changes in one insert, each decided by its own place: the invoices whose won. */
    async appendMany(
      accountId: string,
      entries: { invoiceId: string; change: LoggedInvoiceChange<Priced>; currency: string }[],
    ): Promise<Set<string>> {
      if (entries.length === 0) return new Set();
      const docs = entries.map(
        ({ invoiceId, change }) => ({ ...change, _id: entryId(invoiceId, change.n), accountId, invoiceId }) as never,
      );
      const won = await wonInserts(changes.insertMany(docs, { ordered: false }), docs.length);
      const wonIds = new Set<string>();
      for (const index of won) {
        const { invoiceId, change, currency } = entries[index] as (typeof entries)[number];
        wonIds.add(invoiceId);
        const money = moneyOf(change);
        if (money) countMoneyChange(money.kind, currency, money.micros);
      }
      return wonIds;
    },

    /** The invoice's changes after the `n`-th, in order; all of them from n = 0. */
    async after(accountId: string, invoiceId: string, n = 0): Promise<LoggedInvoiceChange<Priced>[]> {
      const docs = await changes
        .find({ accountId, invoiceId, n: { $gt: n } } as never)
        .sort({ n: 1 })
        .toArray();
      return docs.map((doc) => toChange(doc as ChangeDoc<Priced>));
    },

    usageCorrectionsOf,

    /** usageCorrectionsOf one invoice. */
    async usageCorrections(accountId: string, invoiceId: string): Promise<LoggedInvoiceChange<Priced>[]> {
      return (await usageCorrectionsOf(accountId, [invoiceId])).get(invoiceId) ?? [];
    },

    /** Of these invoices (each with the changeCount it was read with), those with a change not yet applied. */
    async withChangesPast(invoices: { id: string; changeCount: number }[]): Promise<Set<string>> {
      if (invoices.length === 0) return new Set();
      const ids = invoices.map(({ id, changeCount }) => entryId(id, changeCount + 1));
      const invoiceIds = { invoiceId: { $in: invoices.map(({ id }) => id) } };
      const found = await changes
        .find(routedById(changes, { _id: { $in: ids } }, invoiceIds), { projection: { invoiceId: 1 } })
        .toArray();
      return new Set(found.map((doc) => doc.invoiceId));
    },
  };
}
