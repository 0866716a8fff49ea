import type { Db } from "mongodb";
import { wonInsert, wonInserts } from "../db/duplicate-key.js";
import type { RecognitionSchedule } from "../domain/reports/revenue.js";

/** A schedule as stored: whose, which invoice, and `end`, the latest end of its lines (what a window reads by). */
export interface StoredSchedule extends RecognitionSchedule {
  id: string;
  accountId: string;
  invoiceId: string;
  customerId: string;
  end: Date;
  /** When it was written (real time; absent on schedules written before closings existed). */
  recordedAt?: Date | undefined;
}

type ScheduleDoc = Omit<StoredSchedule, "id"> & { _id: string };

const toSchedule = ({ _id, ...fields }: ScheduleDoc): StoredSchedule => ({ id: _id, ...fields });

/**
 * The revenue ledger: insert-only recognition schedules (domain/reports/revenue.ts), one per invoice change that
 * moves revenue (a finalization's lines, an OFFSET note's reversal, a void's mirror of what its invoice had), written
 * by the invoice's life before the invoice takes the change and keyed by it, so a repeat is a no-op. Nothing updates
 * or deletes one. A report reads the schedules whose lines end after its start or that were billed inside it.
 */
export function createRevenueScheduleRepository(db: Db) {
  const schedules = db.collection<ScheduleDoc>("revenueSchedules");

  return {
    async ensureIndexes() {
      await schedules.createIndex({ accountId: 1, currency: 1, end: 1 });
      await schedules.createIndex({ accountId: 1, currency: 1, billedAt: 1 });
      await schedules.createIndex({ accountId: 1, invoiceId: 1 });
      await schedules.createIndex({ accountId: 1, _id: 1 });
      // Schedules recorded since a month was closed (late postings), added to its closing on read.
      await schedules.createIndex({ accountId: 1, currency: 1, recordedAt: 1 });
    },

    /** The currencies of the account's schedules. */
    async currencies(accountId: string): Promise<string[]> {
      return schedules.distinct("currency", { accountId });
    },

    /** When the account's earliest schedule in `currency` was billed. */
    async firstBilled(accountId: string, currency: string): Promise<Date | undefined> {
      const [first] = await schedules.find({ accountId, currency }).sort({ billedAt: 1 }).limit(1).toArray();
      return first?.billedAt;
    },

    /** The schedules recorded at or after `since`: the late postings into months closed then. */
    async recordedSince(accountId: string, currency: string, since: Date): Promise<StoredSchedule[]> {
      const docs = await schedules.find({ accountId, currency, recordedAt: { $gte: since } }).toArray();
      return docs.map(toSchedule);
    },

    /** Writes the schedule once under `id`: false when it was already written. */
    async record(schedule: StoredSchedule): Promise<boolean> {
      const { id, ...fields } = schedule;
      return wonInsert(schedules.insertOne({ _id: id, ...fields, recordedAt: new Date() }));
    },

    /** record of several schedules in one insert, each written once. */
    async recordMany(batch: StoredSchedule[]): Promise<void> {
      if (batch.length === 0) return;
      const recordedAt = new Date();
      const docs = batch.map(({ id, ...fields }) => ({ _id: id, ...fields, recordedAt }));
      await wonInserts(schedules.insertMany(docs, { ordered: false }), docs.length);
    },

    /** The invoice's schedules, in the order written. */
    async ofInvoice(accountId: string, invoiceId: string): Promise<StoredSchedule[]> {
      const docs = await schedules.find({ accountId, invoiceId }).toArray();
      return docs.map(toSchedule).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },

    /**
     * The schedules a report of [from, to) needs: those with a line ending after `from` (they recognize or defer
     * inside it) and those billed in [from, to); only `customerId`'s when given.
     */
    async inWindow(
      accountId: string,
      currency: string,
      from: Date,
      to: Date,
      customerId?: string,
    ): Promise<StoredSchedule[]> {
      const [open, billed] = await Promise.all([
        schedules.find({ accountId, currency, end: { $gt: from } }).toArray(),
        schedules.find({ accountId, currency, billedAt: { $gte: from, $lt: to } }).toArray(),
      ]);
      // One customer's are picked here: the window's range is the index's, whoever's schedules they are.
      const byId = new Map<string, ScheduleDoc>();
      for (const doc of [...open, ...billed])
        if (customerId === undefined || doc.customerId === customerId) byId.set(doc._id, doc);
      return [...byId.values()].map(toSchedule);
    },

    /**
     * inWindow's schedules of the account, handed to `visit` `size` at a time, so that a month's closing holds a
     * batch in memory, never every schedule reaching past its start (all the later ones, on a first closing of an
     * old month).
     */
    async eachInWindow(
      accountId: string,
      currency: string,
      { from, to }: { from: Date; to: Date },
      visit: (batch: StoredSchedule[]) => void,
      size = 1_000,
    ): Promise<void> {
      const billed = await schedules.find({ accountId, currency, billedAt: { $gte: from, $lt: to } }).toArray();
      visit(billed.map(toSchedule));
      const seen = new Set(billed.map(({ _id }) => _id));
      let batch: StoredSchedule[] = [];
      for await (const doc of schedules.find({ accountId, currency, end: { $gt: from } }).batchSize(size)) {
        if (seen.has(doc._id)) continue;
        batch.push(toSchedule(doc));
        if (batch.length >= size) {
          visit(batch);
          batch = [];
        }
      }
      visit(batch);
    },

    /** The account's schedules after `after` in `_id` order, `limit` at most: an export's batches. */
    async page(accountId: string, after: string | undefined, limit: number): Promise<StoredSchedule[]> {
      const filter = after === undefined ? { accountId } : { accountId, _id: { $gt: after } };
      const docs = await schedules.find(filter).sort({ _id: 1 }).limit(limit).toArray();
      return docs.map(toSchedule);
    },
  };
}
