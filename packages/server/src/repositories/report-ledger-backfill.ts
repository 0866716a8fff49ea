import type { Db } from "mongodb";
import { isDuplicateKeyError } from "../db/duplicate-key.js";

/** Where the report ledgers' backfill stands: the account it walks and the last invoice of it replayed (`seq`). */
export interface ReportLedgerBackfillProgress {
  done: boolean;
  accountId?: string;
  seq?: number;
}

type ProgressDoc = ReportLedgerBackfillProgress & { _id: string };

/**
 * The walk's note. `-2`: walked again since payments and refunds joined it (the collections ledger, issue 49), on
 * databases whose first walk was done; what that one wrote is kept (every entry is keyed, so nothing is written twice).
 */
const BACKFILL_ID = "report-ledgers-2";

/**
 * The progress of the report ledgers' backfill (services/invoices/report-ledger-backfill.ts): one document, a note of
 * where the walk is, moved after each page. Two instances moving it at once may replay a page again: every ledger
 * entry is keyed by its invoice change, so a replay writes nothing twice.
 */
export function createReportLedgerBackfillRepository(db: Db) {
  const migrations = db.collection<ProgressDoc>("reportLedger_migrations");

  return {
    async ensureIndexes() {
      // One document, read by `_id`.
    },

    async progress(): Promise<ReportLedgerBackfillProgress> {
      const doc = await migrations.findOne({ _id: BACKFILL_ID });
      if (!doc) return { done: false };
      return {
        done: doc.done,
        ...(doc.accountId && { accountId: doc.accountId }),
        ...(typeof doc.seq === "number" && { seq: doc.seq }),
      };
    },

    /** Notes the walk's place, or that it is done. */
    async advance({ done, accountId, seq }: ReportLedgerBackfillProgress): Promise<void> {
      const doc = { done, ...(accountId !== undefined && { accountId }), ...(seq !== undefined && { seq }) };
      await migrations.replaceOne({ _id: BACKFILL_ID }, doc, { upsert: true }).catch((error) => {
        // Another instance's upsert made the document first: its note stands until the next page.
        if (!isDuplicateKeyError(error)) throw error;
      });
    },
  };
}
