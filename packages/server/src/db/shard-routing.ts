/**
 * How mongos would route a query shape, and whether a collection's unique indexes hold on a sharded cluster: pure
 * functions over a shard key (db/shard-plan.ts) and the shapes and index declarations the index proof captures
 * (db/query-shapes.ts). Checked by test/shard-plan.test.ts; docs/scaling.md is rendered from them.
 */
import type { IndexDeclaration, OperatorClass } from "./query-shapes.js";

/** A shard key: fields in order, each ranged (1) or hashed. At most one hashed field (MongoDB's rule). */
export type ShardKey = [string, 1 | "hashed"][];

/**
 * Where mongos sends a query on a collection sharded on a key:
 * - `routed`: every key field is fixed by equality (or a short `$in`): the chunks holding those values, one shard
 *   for equality;
 * - `range`: the key's fields up to a ranged one fixed, that one bounded by a range: the chunks of that range only;
 * - `account`: only the account is fixed: every shard holding one of the account's chunks, which for an account
 *   split across the cluster is every shard (scatter-gather within the account);
 * - `every`: no key prefix at all: every shard.
 */
export type Routing = "routed" | "range" | "account" | "every";

const FIXING: OperatorClass[] = ["equality", "in"];

/** The routing of a filter (field → operator class) under `key`. An unsharded collection is always `routed`. */
export function routingOf(filter: Record<string, OperatorClass>, key: ShardKey | "unsharded"): Routing {
  if (key === "unsharded") return "routed";
  for (const [position, [field, kind]] of key.entries()) {
    const condition = filter[field];
    if (condition && FIXING.includes(condition)) continue;
    if (condition === "range" && kind === 1) return "range";
    if (position === 0) return "every";
    return key[0]?.[0] === "accountId" ? "account" : "every";
  }
  return "routed";
}

/** Whether mongos sends a query with this routing to a bounded set of chunks (one shard, or one key range). */
export const isTargeted = (routing: Routing) => routing === "routed" || routing === "range";

/**
 * Whether a unique index stays unique across a cluster sharded on `key`: MongoDB requires the key's field names as
 * a prefix of the index (a hashed key field counts by its name), and refuses to build or shard otherwise.
 */
export function uniqueHolds(index: Pick<IndexDeclaration, "key">, key: ShardKey | "unsharded"): boolean {
  if (key === "unsharded") return true;
  return key.every(([field], position) => index.key[position]?.[0] === field);
}

/** Whether `key` is `prefix` extended by more fields (field names and kinds equal): `refineCollectionShardKey`. */
export const isPrefixOf = (prefix: ShardKey, key: ShardKey) =>
  prefix.length <= key.length && prefix.every(([field, kind], position) => sameField(key[position], field, kind));

const sameField = (entry: ShardKey[number] | undefined, field: string, kind: 1 | "hashed") =>
  entry !== undefined && entry[0] === field && entry[1] === kind;

/** A key as MongoDB writes it: `{ accountId: 1, customerId: "hashed" }`. */
export const keyDocument = (key: ShardKey): Record<string, 1 | "hashed"> => Object.fromEntries(key);

/** A shard key read back from `config.collections` (`{ accountId: 1 }`), numbers as MongoDB stores them. */
export const keyOfDocument = (document: Record<string, unknown>): ShardKey =>
  Object.entries(document).map(([field, kind]) => [field, kind === "hashed" ? "hashed" : 1]);

/** The key as the docs show it: `{ accountId: 1, customerId: "hashed" }`, or `unsharded`. */
export const keyText = (key: ShardKey | "unsharded") =>
  key === "unsharded"
    ? "unsharded"
    : `{ ${key.map(([field, kind]) => `${field}: ${kind === "hashed" ? '"hashed"' : 1}`).join(", ")} }`;
