import type { Export, ExportCreate } from "@billing/shared";
import { type Db, ObjectId } from "mongodb";
import { findOwned } from "../db/find-owned.js";
import { toObjectId } from "../db/ids.js";

/** EXPORT_RETENTION_DAYS when it is not set. */
export const DEFAULT_EXPORT_RETENTION_DAYS = 7;

interface ExportDoc {
  _id: ObjectId;
  accountId: string;
  kind: Export["kind"];
  format: Export["format"];
  from: Date;
  to: Date;
  status: Export["status"];
  /** Progress as last noted (the chunks are the truth: see export-chunks.ts). */
  rows: number;
  chunks: number;
  createdAt: Date;
  completedAt?: Date;
  expiresAt: Date;
}

export interface StoredExport extends Export {
  accountId: string;
  chunks: number;
}

const toExport = (doc: ExportDoc): StoredExport => ({
  id: doc._id.toHexString(),
  accountId: doc.accountId,
  kind: doc.kind,
  format: doc.format,
  from: doc.from.toISOString(),
  to: doc.to.toISOString(),
  status: doc.status,
  rows: doc.rows,
  chunks: doc.chunks,
  createdAt: doc.createdAt.toISOString(),
  ...(doc.completedAt && { completedAt: doc.completedAt.toISOString() }),
  expiresAt: doc.expiresAt.toISOString(),
});

/**
 * Exports asked for (POST /exports): what to write and how far the export worker has come. The worker is the only
 * writer after creation; its notes of progress may be lost (FerretDB's updates), the chunks it inserted are not.
 */
export function createExportRepository(db: Db, retentionDays = DEFAULT_EXPORT_RETENTION_DAYS) {
  const exports = db.collection<ExportDoc>("exports");

  return {
    async ensureIndexes() {
      await exports.createIndex({ status: 1, _id: 1 });
      await exports.createIndex({ expiresAt: 1 });
    },

    async create(accountId: string, input: ExportCreate, now: Date): Promise<StoredExport> {
      const doc: ExportDoc = {
        _id: new ObjectId(),
        accountId,
        kind: input.kind,
        format: input.format,
        from: new Date(input.from),
        to: new Date(input.to),
        status: "PENDING",
        rows: 0,
        chunks: 0,
        createdAt: now,
        expiresAt: new Date(now.getTime() + retentionDays * 86_400_000),
      };
      await exports.insertOne(doc);
      return toExport(doc);
    },

    async get(accountId: string, exportId: string): Promise<StoredExport | undefined> {
      const doc = await findOwned(exports, accountId, toObjectId(exportId));
      return doc ? toExport(doc) : undefined;
    },

    /** Exports not yet completed, oldest first, across accounts: the worker's work. */
    async unfinished(limit: number): Promise<StoredExport[]> {
      const docs = await exports
        .find({ status: { $in: ["PENDING", "RUNNING"] } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toExport);
    },

    /** Notes the progress: `chunks` written holding `rows` rows; completed when `done`. */
    async noteProgress(exportId: string, chunks: number, rows: number, done: boolean, now: Date): Promise<void> {
      await exports.updateOne(
        { _id: new ObjectId(exportId) },
        { $set: { chunks, rows, status: done ? "COMPLETED" : "RUNNING", ...(done && { completedAt: now }) } },
      );
    },

    /** Deletes exports past their retention, a batch at a time; their ids (their chunks go next). */
    async purgeExpired(now: Date, limit = 100): Promise<string[]> {
      const docs = await exports
        .find({ expiresAt: { $lte: now } }, { projection: { _id: 1 } })
        .limit(limit)
        .toArray();
      if (docs.length === 0) return [];
      await exports.deleteMany({ _id: { $in: docs.map((doc) => doc._id) } });
      return docs.map((doc) => doc._id.toHexString());
    },
  };
}
