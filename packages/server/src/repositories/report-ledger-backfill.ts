import type { Db } from "mongodb";
import { type MigrationProgress, pagedMigration, type Walk } from "../db/paged-migration.js";

/** Where the report ledgers' backfill stands: the account it walks and the last invoice of it replayed (`seq`). */
export interface ReportLedgerBackfillPlace {
  accountId: string;
  seq?: number;
}

/**
 * The walk's note. `-2`: walked again since payments and refunds joined it (the collections ledger, issue 49), on
 * databases whose first walk was done; what that one wrote is kept (every entry is keyed, so nothing is written twice).
 */
const BACKFILL_ID = "report-ledgers-2";

/**
 * The progress of the report ledgers' backfill (services/invoices/report-ledger-backfill.ts): one document, a note of
 * where the walk is, moved after each page (db/paged-migration.ts). Two instances moving it at once may replay a page
 * again: every ledger entry is keyed by its invoice change, so a replay writes nothing twice.
 */
export function createReportLedgerBackfillRepository(db: Db) {
  const backfill = pagedMigration(
    db.collection<MigrationProgress<ReportLedgerBackfillPlace>>("reportLedger_migrations"),
    BACKFILL_ID,
  );

  return {
    async ensureIndexes() {
      // One document, read by `_id`.
    },

    /** One step of the walk from the noted place, then the place noted (or that it is done): what the page counts. */
    step: (walk: Walk<ReportLedgerBackfillPlace>) => backfill.step(walk),
  };
}
