import { type Db, type Filter, ObjectId } from "mongodb";
import { wonInsert } from "../db/duplicate-key.js";
import { findOwned } from "../db/find-owned.js";
import { iso, toObjectId } from "../db/ids.js";
import type { MigrationEffective } from "../domain/plans/migration.js";
import type { Hooks } from "./hooks.js";

/** A migration of a plan's contracts to another version (docs/decisions.md, "Plans"), worked in batches. */
interface MigrationDoc {
  _id: ObjectId;
  accountId: string;
  planId: string;
  planKey: string;
  fromVersions: number[];
  toVersion: number;
  effective: MigrationEffective;
  /** The account's billing time when asked: what `effective` is read against. */
  at: Date;
  dropOverrides: boolean;
  status: "RUNNING" | "COMPLETED";
  total: number;
  /** The last contract of the last finished batch: the next batch starts after it. */
  cursor?: string;
  createdAt: Date;
  updatedAt: Date;
  completedAt?: Date;
}

/**
 * One contract's part in a migration, keyed `<migration>:<contract>`: inserted (`moving`) before the contract is moved,
 * so of two workers on one batch one moves it; `moved` or `failed` once known. An entry left `moving` by a crash is
 * taken up again by the next batch that meets the contract (still on its old version, or already moved).
 */
interface MigrationItemDoc {
  _id: string;
  accountId: string;
  migrationId: string;
  contractId: string;
  outcome: "moving" | "moved" | "failed";
  reason?: string;
  at: Date;
}

export type MigrationRecord = Omit<MigrationDoc, "_id" | "at" | "createdAt" | "updatedAt" | "completedAt"> & {
  id: string;
  at: string;
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
};

const toRecord = ({ _id, at, createdAt, updatedAt, completedAt, ...fields }: MigrationDoc): MigrationRecord => ({
  id: _id.toHexString(),
  ...fields,
  at: iso(at),
  createdAt: iso(createdAt),
  updatedAt: iso(updatedAt),
  ...(completedAt && { completedAt: iso(completedAt) }),
});

/** Failures a migration's answer lists (the count covers them all). */
const FAILURES_SHOWN = 100;

export function createPlanMigrationRepository(db: Db, hooks: Hooks) {
  const migrations = db.collection<MigrationDoc>("planMigrations");
  const items = db.collection<MigrationItemDoc>("planMigrationItems");

  return {
    async ensureIndexes() {
      // The worker's poll: running migrations of every account, oldest first.
      await migrations.createIndex({ status: 1, _id: 1 });
      await items.createIndex({ accountId: 1, migrationId: 1, outcome: 1, _id: 1 });
    },

    async create(
      accountId: string,
      fields: Omit<MigrationDoc, "_id" | "accountId" | "status" | "createdAt" | "updatedAt">,
    ): Promise<MigrationRecord> {
      const now = new Date();
      const doc: MigrationDoc = {
        _id: new ObjectId(),
        accountId,
        ...fields,
        status: fields.total === 0 ? "COMPLETED" : "RUNNING",
        createdAt: now,
        updatedAt: now,
        ...(fields.total === 0 && { completedAt: now }),
      };
      await migrations.insertOne(doc);
      return toRecord(doc);
    },

    async get(accountId: string, migrationId: string): Promise<MigrationRecord | undefined> {
      const doc = await findOwned(migrations, accountId, toObjectId(migrationId));
      return doc ? toRecord(doc) : undefined;
    },

    /** Running migrations of every account, oldest first: the worker's poll. */
    async running(limit: number): Promise<MigrationRecord[]> {
      return (await migrations.find({ status: "RUNNING" }).sort({ _id: 1 }).limit(limit).toArray()).map(toRecord);
    },

    /** Records a finished batch: the next starts after `cursor`; `completed` when there is none. */
    async advance(accountId: string, migrationId: string, cursor: string | undefined, completed: boolean) {
      const now = new Date();
      await migrations.updateOne({ accountId, _id: new ObjectId(migrationId) } as Filter<MigrationDoc>, {
        $set: {
          ...(cursor && { cursor }),
          updatedAt: now,
          ...(completed && { status: "COMPLETED" as const, completedAt: now }),
        },
      });
    },

    /** Claims the contract for the migration; false when it was claimed before (then see `item`). */
    async claim(accountId: string, migrationId: string, contractId: string) {
      const _id = `${migrationId}:${contractId}`;
      await hooks("planMigrations.claim", contractId);
      return await wonInsert(
        items.insertOne({ _id, accountId, migrationId, contractId, outcome: "moving", at: new Date() }),
      );
    },

    async item(migrationId: string, contractId: string) {
      return (await items.findOne({ _id: `${migrationId}:${contractId}` })) ?? undefined;
    },

    async settle(migrationId: string, contractId: string, outcome: "moved" | "failed", reason?: string) {
      await hooks("planMigrations.settle", contractId);
      await items.updateOne(
        { _id: `${migrationId}:${contractId}` },
        { $set: { outcome, ...(reason && { reason }), at: new Date() } },
      );
    },

    /**
     * The contracts moved (`moving` ones count: an entry still moving once its contract has left the old versions was
     * moved by a call that stopped before saying so) and the failures.
     */
    async progress(accountId: string, migrationId: string) {
      const [moved, moving, failedTotal, failed] = await Promise.all([
        items.countDocuments({ accountId, migrationId, outcome: "moved" }),
        items.countDocuments({ accountId, migrationId, outcome: "moving" }),
        items.countDocuments({ accountId, migrationId, outcome: "failed" }),
        items.find({ accountId, migrationId, outcome: "failed" }).sort({ _id: 1 }).limit(FAILURES_SHOWN).toArray(),
      ]);
      return {
        done: moved + moving,
        failedTotal,
        failed: failed.map(({ contractId, reason }) => ({ contractId, reason: reason ?? "unknown" })),
      };
    },
  };
}
