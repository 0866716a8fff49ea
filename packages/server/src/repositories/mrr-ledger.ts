import type { Db } from "mongodb";
import { wonInsert, wonInserts } from "../db/duplicate-key.js";
import { type MrrCurve, type MrrPoint, type MrrUsage, USAGE_TRAILING_MS } from "../domain/reports/mrr.js";
import type { MrrLedgerEntries } from "../domain/reports/mrr-closing.js";

/** Stands for "no end" in `until`, so that a window's range reads one index. */
const FOREVER = new Date(Date.UTC(9999, 0, 1));

interface CurveDoc {
  _id: string;
  kind: "CURVE";
  accountId: string;
  currency: string;
  contractId: string;
  customerId: string;
  seq: number;
  /** A coupon's redemption since change `seq`: the contract's redemptions then. */
  revision?: number;
  points: MrrPoint[];
  /** The first point's instant. */
  start: Date;
  /** From when the contract is no longer live for good (its last point's, when that is not live), else FOREVER. */
  until: Date;
  recordedAt: Date;
}

interface UsageDoc {
  _id: string;
  kind: "USAGE";
  accountId: string;
  currency: string;
  contractId: string;
  invoiceId: string;
  cycleEnd: Date;
  micros: number;
  /** A void's entry: its invoice's usage counts for nothing. */
  voided: boolean;
  /** When it was written (absent on entries written before closings read it: recorded before any cut). */
  recordedAt?: Date;
}

type LedgerDoc = CurveDoc | UsageDoc;

const usageDocOf = (
  accountId: string,
  currency: string,
  usage: MrrUsage & { invoiceId: string; voided: boolean },
): UsageDoc => ({
  _id: `${usage.invoiceId}:${usage.voided ? "usage-void" : "usage"}`,
  kind: "USAGE",
  accountId,
  currency,
  ...usage,
  recordedAt: new Date(),
});

/**
 * The MRR ledger: insert-only. A contract's change (creation, amendment, seats, pause, resumption, termination,
 * deletion) writes the contract's whole recurring curve (domain/reports/mrr.ts) under `<contract>:<change number>`, so
 * the latest wins and a repeat is a no-op; a coupon's redemption under `<contract>:<change number>:coupons-<n>` (n: the
 * contract's redemptions then). A finalized invoice writes its cycle's usage under `<invoice>:usage`, a void
 * `<invoice>:usage-void`. Nothing updates or deletes an entry. A report reads the curves of the contracts live in its
 * window and their usages of the window and the two months before it: bounded by the window, not by history.
 */
export function createMrrLedgerRepository(db: Db) {
  const ledger = db.collection<LedgerDoc>("mrrLedger");

  // Every curve of the contracts (the latest decides), and only their usages of cycles ending in the window or the
  // 62 days before it (a void's entry has its invoice's cycle end): not every invoice they ever had.
  async function entriesOf(accountId: string, contractIds: string[], from: Date, to: Date): Promise<MrrLedgerEntries> {
    if (contractIds.length === 0) return { curves: [], usages: [] };
    const since = new Date(from.getTime() - USAGE_TRAILING_MS);
    const [curveDocs, usageDocs] = await Promise.all([
      db
        .collection<CurveDoc>("mrrLedger")
        .find({ accountId, contractId: { $in: contractIds }, kind: "CURVE" })
        .toArray(),
      db
        .collection<UsageDoc>("mrrLedger")
        .find({ accountId, contractId: { $in: contractIds }, kind: "USAGE", cycleEnd: { $gte: since, $lte: to } })
        .toArray(),
    ]);
    return {
      curves: curveDocs.map(({ contractId, customerId, seq, revision, points, recordedAt }) => ({
        contractId,
        customerId,
        seq,
        ...(revision !== undefined && { revision }),
        points,
        recordedAt,
      })),
      usages: usageDocs.map(({ contractId, invoiceId, cycleEnd, micros, voided, recordedAt }) => ({
        contractId,
        invoiceId,
        cycleEnd,
        micros,
        voided,
        ...(recordedAt !== undefined && { recordedAt }),
      })),
    };
  }

  return {
    async ensureIndexes() {
      await ledger.createIndex({ accountId: 1, currency: 1, kind: 1, until: 1 });
      // A report's contracts' curves, and their usages of the cycles ending in its window and the 62 days before.
      await ledger.createIndex({ accountId: 1, contractId: 1, kind: 1, cycleEnd: 1 });
      // One customer's report (GET /reports/mrr?customerId=): its curves live in the window, as the account's above.
      await ledger.createIndex({ accountId: 1, customerId: 1, currency: 1, kind: 1, until: 1 });
      // The first month to close (the earliest curve's start), and the contracts with entries recorded since a cut.
      await ledger.createIndex({ accountId: 1, currency: 1, kind: 1, start: 1 });
      await ledger.createIndex({ accountId: 1, currency: 1, recordedAt: 1 });
    },

    /** The currencies of the account's entries. */
    async currencies(accountId: string): Promise<string[]> {
      return ledger.distinct("currency", { accountId });
    },

    /** The earliest start of the account's curves in `currency` (MRR is 0 before it), if any. */
    async firstStart(accountId: string, currency: string): Promise<Date | undefined> {
      const [first] = await db
        .collection<CurveDoc>("mrrLedger")
        .find({ accountId, currency, kind: "CURVE" }, { projection: { start: 1 } })
        .sort({ start: 1 })
        .limit(1)
        .toArray();
      return first?.start;
    },

    /** The contracts with an entry (curve or usage) recorded at or after `since`. */
    async recordedSince(accountId: string, currency: string, since: Date): Promise<string[]> {
      const docs = await ledger
        .find({ accountId, currency, recordedAt: { $gte: since } }, { projection: { contractId: 1 } })
        .toArray();
      return [...new Set(docs.map((doc) => doc.contractId))];
    },

    /** Writes the contract's curve after its change number `seq` once: false when it was already written. */
    async recordCurve(accountId: string, currency: string, curve: MrrCurve): Promise<boolean> {
      const last = curve.points.at(-1);
      const doc: CurveDoc = {
        _id: `${curve.contractId}:${curve.seq}${curve.revision === undefined ? "" : `:coupons-${curve.revision}`}`,
        kind: "CURVE",
        accountId,
        currency,
        ...curve,
        start: curve.points[0]?.from ?? FOREVER,
        until: last && !last.live ? last.from : FOREVER,
        recordedAt: new Date(),
      };
      return wonInsert(ledger.insertOne(doc));
    },

    /** Writes a finalized invoice's usage of its cycle once (`voided`: its void's entry, which cancels it). */
    async recordUsage(
      accountId: string,
      currency: string,
      usage: MrrUsage & { invoiceId: string; voided: boolean },
    ): Promise<boolean> {
      return wonInsert(ledger.insertOne(usageDocOf(accountId, currency, usage)));
    },

    /** recordUsage of several invoices in one insert, each written once. */
    async recordUsages(
      accountId: string,
      batch: { currency: string; usage: MrrUsage & { invoiceId: string; voided: boolean } }[],
    ): Promise<void> {
      if (batch.length === 0) return;
      const docs = batch.map(({ currency, usage }) => usageDocOf(accountId, currency, usage));
      await wonInserts(ledger.insertMany(docs, { ordered: false }), docs.length);
    },

    /**
     * What a report of [from, to) needs: every curve of each contract that has one live at some instant from `from`
     * on (or ending at it: its MRR just before is the period's start) and starting before `to` (a contract's older
     * curves too: its latest decides), and those contracts' usage entries whose cycles ended in [from − 62 days, to]
     * (a cycle ending at `to` is in the MRR just before it). `customerId`: only that customer's contracts (a curve
     * names its contract's customer; a usage entry is read by its contract).
     */
    async inWindow(
      accountId: string,
      currency: string,
      from: Date,
      to: Date,
      customerId?: string,
    ): Promise<MrrLedgerEntries> {
      const live = await db
        .collection<CurveDoc>("mrrLedger")
        .find(
          {
            accountId,
            ...(customerId !== undefined && { customerId }),
            currency,
            kind: "CURVE",
            until: { $gte: from },
          },
          { projection: { contractId: 1, start: 1 } },
        )
        .toArray();
      const contractIds = [...new Set(live.filter((doc) => doc.start < to).map((doc) => doc.contractId))];
      return entriesOf(accountId, contractIds, from, to);
    },

    /** Every curve of the contracts, and their usage entries of cycles ending in [from − 62 days, to]. */
    ofContracts: (accountId: string, contractIds: string[], from: Date, to: Date) =>
      entriesOf(accountId, contractIds, from, to),
  };
}
