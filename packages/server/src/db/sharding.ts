import type { Db } from "mongodb";
import { databasesRoutedByAccount } from "./find-owned.js";
import { keyNow } from "./shard-check.js";
import { SHARD_PLAN } from "./shard-plan.js";
import { isPrefixOf, keyOfDocument, keyText, type ShardKey } from "./shard-routing.js";

/**
 * Collections whose `_id` decides a race (docs/scaling.md): the loser of two inserts of one `_id` gets a
 * duplicate-key error. On a sharded collection MongoDB enforces `_id` uniqueness per shard only, unless `_id` is the
 * shard key, so two inserts routed to two shards would both win and exactly-once would break silently. They stay
 * unsharded, or are sharded on `_id` (ranged or hashed; a key starting with `_id` does too). (Compound unique
 * indexes need no check here: MongoDB
 * itself refuses to shard a collection, or to build a unique index, unless the shard key is a prefix of the index.)
 */
export const RACE_DECIDED_BY_ID = [
  "alertCrossings",
  "backfill_commits",
  "backfill_events",
  "backfill_reverts",
  "billingClaims",
  "billingFailures",
  "billingPendingPayments",
  "billingSchedules",
  "contractDeletions",
  "contractTransitions",
  "couponRedemptions",
  "creditRecurrenceStops",
  "credit_migrations",
  "credit_notes",
  "customerAliases",
  "customerNames",
  "customer_migrations",
  "documentNumber_migrations",
  "documentNumberAttempts",
  "documentNumbers",
  "event_rollup_migrations",
  "event_voids",
  "idempotencyKeys",
  "idempotencyOutcomes",
  "invoiceChanges",
  "invoice_migrations",
  "list_counts",
  "planMigrationItems",
  "planVersions",
  "rateLimitSlots",
  "rateLimitWindows",
  "reportLedger_migrations",
  "reservationOpenings",
  "reservationRefs",
  "reservationSettlements",
  "reservation_migrations",
  "reservations",
  "streamLeases",
  "testClockLeases",
  "tokenEnds",
  "usage_rollup_widenings",
  "usage_rollups",
  "webhookAttempts",
  "webhookMessages",
  "webhookSecrets",
  "webhookSweepMarks",
] as const;

/** What the cluster answered: whether it is sharded (`hello` from a mongos) and each sharded collection's key. */
export interface ShardingAnswers {
  /** `hello` answered `msg: "isdbgrid"`: the client talks to a mongos. */
  sharded: boolean;
  /** `config.collections` entries of this database: `_id` is `<db>.<collection>`, `key` the shard key. */
  shardedCollections: { _id: string; key: Record<string, unknown> }[];
}

/** A shard key that keeps `_id` unique across shards: one that starts with `_id` (ranged or hashed). */
const isIdKey = (key: ShardKey) => key[0]?.[0] === "_id";

/**
 * Whether a collection sharded on `key` keeps the plan's races (db/shard-plan.ts): the plan's key, or a prefix of it
 * (an earlier plan's `{ accountId: 1 }`, refined in place by `refineCollectionShardKey`), or a key the plan still
 * accepts; for a collection whose `_id` decides a race, any key starting with `_id`.
 */
export function keyKeepsPlan(collection: string, key: ShardKey): boolean {
  const entry = SHARD_PLAN[collection];
  if ((RACE_DECIDED_BY_ID as readonly string[]).includes(collection) && isIdKey(key)) return true;
  if (!entry) return true;
  const planned = keyNow(entry);
  if (planned === "unsharded") return false;
  const same = (other: ShardKey) => isPrefixOf(key, other) && isPrefixOf(other, key);
  return isPrefixOf(key, planned) || isPrefixOf(key, entry.key as ShardKey) || (entry.accepts ?? []).some(same);
}

/**
 * Why the service must not start on this database, or undefined: each collection sharded against the plan, named
 * with its key and the plan's. Example: `webhookMessages` sharded on `{ accountId: 1 }` → a refusal naming it;
 * sharded on `{ _id: "hashed" }`, or not sharded → undefined; `events` on `{ accountId: 1, timestamp: 1 }` → refused
 * (its unique `(accountId, ref)` could not hold).
 */
export function shardingRefusal(dbName: string, answers: ShardingAnswers): string | undefined {
  if (!answers.sharded) return undefined;
  const wrong = answers.shardedCollections.flatMap(({ _id, key }) => {
    const collection = _id.startsWith(`${dbName}.`) ? _id.slice(dbName.length + 1) : undefined;
    if (!collection || keyKeepsPlan(collection, keyOfDocument(key))) return [];
    const entry = SHARD_PLAN[collection];
    const plan = entry ? ` instead of ${keyText(keyNow(entry))}` : "";
    return [`${collection} (sharded on ${JSON.stringify(key)})${plan}`];
  });
  if (wrong.length === 0) return undefined;
  return (
    `refusing to start: ${wrong.join(", ")}: sharded against the plan of docs/scaling.md. A collection whose _id ` +
    "decides concurrent writes must be unsharded or sharded on _id (or on the plan's key, whose values its _id " +
    "names), because MongoDB keeps _id unique only per shard otherwise; any other must have the plan's key"
  );
}

/** Asks the cluster what `shardingRefusal` decides on: `hello`, then (on a mongos only) `config.collections`. */
export async function shardingAnswers(db: Db): Promise<ShardingAnswers> {
  const hello = await db.admin().command({ hello: 1 });
  if (hello.msg !== "isdbgrid") return { sharded: false, shardedCollections: [] };
  const names = [...new Set([...RACE_DECIDED_BY_ID, ...Object.keys(SHARD_PLAN)])].map(
    (name) => `${db.databaseName}.${name}`,
  );
  const shardedCollections = await db.client
    .db("config")
    .collection<{ _id: string; key: Record<string, unknown> }>("collections")
    .find({ _id: { $in: names } }, { projection: { _id: 1, key: 1 } })
    .toArray();
  return { sharded: true, shardedCollections };
}

/**
 * Throws, with the refusal as its message, when the database is a sharded cluster that would break exactly-once;
 * on a sharded cluster that passes, lookups by `_id` carry the account from then on (find-owned.ts).
 */
export async function assertShardingKeepsRaces(db: Db): Promise<void> {
  const answers = await shardingAnswers(db);
  const refusal = shardingRefusal(db.databaseName, answers);
  if (refusal) throw new Error(refusal);
  if (answers.sharded) databasesRoutedByAccount.add(db.databaseName);
}
