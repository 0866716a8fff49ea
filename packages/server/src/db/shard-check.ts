/**
 * The plan (db/shard-plan.ts) checked against what the code sends: the index declarations and query shapes the index
 * proof captures. Pure: test/shard-plan.test.ts feeds it docs/indexes.md; docs/scaling.md's table is rendered here.
 */
import type { IndexDeclaration, OperatorClass } from "./query-shapes.js";
import { SHARD_PLAN, type ShardPlanEntry } from "./shard-plan.js";
import { isTargeted, keyText, type Routing, routingOf, uniqueHolds } from "./shard-routing.js";
import { SCATTERS, type Scatter } from "./shard-scatters.js";

export interface CapturedShape {
  collection: string;
  /** As describeShape writes it (docs/indexes.md). */
  text: string;
  filter: Record<string, OperatorClass>;
}

/** The key a collection has on a cluster now: the target, or the key it keeps until its pending move is done. */
export const keyNow = (entry: ShardPlanEntry) => entry.pending?.until ?? entry.key;

/** The commands a collection's `routedWrites` covers. */
const WRITES_BY_REF = new Set(["update", "findAndModify"]);

/**
 * A captured shape (`text`, as docs/indexes.md writes it) as it reaches a sharded cluster: lookups by `_id` through
 * db/find-owned.ts carry the account there, and those through its `routedById`, or after a pointer
 * (`pointedLookups`), the key's fields (the capture runs on FerretDB, where they are `_id` alone).
 */
export function shardedFilter(entry: ShardPlanEntry, filter: Record<string, OperatorClass>, text = "find") {
  const command = text.split(" ")[0] ?? "";
  const pointed = entry.pointedLookups?.includes(text);
  const keyed = (pointed || (entry.routedWrites && WRITES_BY_REF.has(command))) && filter._id === "equality";
  if (!keyed && entry.ownedLookups && filter._id === "equality" && !filter.accountId)
    return { ...filter, accountId: "equality" as OperatorClass };
  const byId = filter._id === "equality" || filter._id === "in";
  if (!(entry.routedLookups || keyed) || !byId || entry.key === "unsharded") return filter;
  const keyFields = entry.key.filter(([field]) => !filter[field]).map(([field]) => [field, filter._id] as const);
  return { ...filter, ...Object.fromEntries(keyFields) } as Record<string, OperatorClass>;
}

export interface ScatterFinding {
  collection: string;
  shape: string;
  routing: Routing;
  listed?: Scatter;
}

export interface PlanFindings {
  /** Collections the capture knows and the plan does not. */
  unplanned: string[];
  /** `collection index` pairs: a unique index the collection's target key does not prefix (with the key). */
  uniqueNotPrefixed: string[];
  /** Tenant-growing collections whose target key is `accountId` alone (one account on one shard). */
  accountAlone: string[];
  /** Shapes that go to more than one shard under the target key, each with its allow-list entry if any. */
  scatters: ScatterFinding[];
  /** Allow-listed shapes, and shapes read after a pointer (`pointedLookups`), that the capture no longer holds. */
  stale: string[];
}

export function checkPlan(shapes: CapturedShape[], indexes: IndexDeclaration[]): PlanFindings {
  const collections = new Set([...shapes, ...indexes].map(({ collection }) => collection));
  const unplanned = [...collections].filter((name) => !SHARD_PLAN[name]).sort();
  const uniqueNotPrefixed = indexes.flatMap((index) => {
    const key = SHARD_PLAN[index.collection]?.key;
    if (!index.unique || key === undefined || uniqueHolds(index, key)) return [];
    return [`${index.collection} ${index.name} (key ${keyText(key)})`];
  });
  const accountAlone = Object.entries(SHARD_PLAN)
    .filter(([, { tenant, key }]) => tenant && key !== "unsharded" && key.length === 1 && key[0]?.[0] === "accountId")
    .map(([name]) => name);
  const scatters = shapes.flatMap(({ collection, text, filter }): ScatterFinding[] => {
    const entry = SHARD_PLAN[collection];
    if (!entry) return [];
    const routing = routingOf(shardedFilter(entry, filter, text), entry.key);
    if (isTargeted(routing)) return [];
    const listed = (SCATTERS[collection] ?? []).find(({ shapes: listedShapes }) =>
      listedShapes === "account-wide" ? routing === "account" : listedShapes.includes(text),
    );
    return [{ collection, shape: text, routing, listed }];
  });
  const captured = new Set(shapes.map(({ collection, text }) => `${collection} ${text}`));
  const stale = Object.entries(SCATTERS).flatMap(([collection, scatterList]) =>
    scatterList.flatMap(({ shapes: listed }) =>
      listed === "account-wide" ? [] : listed.filter((text) => !captured.has(`${collection} ${text}`)),
    ),
  );
  for (const [collection, { pointedLookups }] of Object.entries(SHARD_PLAN))
    stale.push(...(pointedLookups ?? []).filter((text) => !captured.has(`${collection} ${text}`)));
  return { unplanned, uniqueNotPrefixed, accountAlone, scatters, stale };
}

const REQUEST = (finding: ScatterFinding) => finding.listed?.when === "request";

/** Shapes sent at request time that go to more than one shard: per collection, and in all. */
export const requestScatters = (findings: PlanFindings) => findings.scatters.filter(REQUEST);

/** docs/scaling.md's table, rendered from the plan and the check's findings. */
export function scalingTable(findings: PlanFindings): string[] {
  const lines = [
    "| collection (repository) | shard key | splits an account | race decided by | shapes to more than one shard |",
    "|---|---|---|---|---|",
  ];
  for (const [name, entry] of Object.entries(SHARD_PLAN).sort(([a], [b]) => a.localeCompare(b))) {
    const own = findings.scatters.filter(({ collection }) => collection === name);
    const background = own.filter(({ listed }) => listed?.when === "background").length;
    const request = own.filter(REQUEST).length;
    const migrating = own.filter(({ listed }) => listed?.when === "migrating").length;
    const untilMigrated = migrating === 0 ? "" : `, ${migrating} until a migration is done`;
    const spread = own.length === 0 ? "none" : `${request} at request time, ${background} background${untilMigrated}`;
    const key = entry.pending
      ? `${keyText(entry.key)} — **pending**: ${keyText(entry.pending.until)} until ${entry.pending.why}`
      : keyText(entry.key);
    const splits = !entry.tenant ? "small" : entry.pending ? "not yet" : "yes";
    lines.push(`| \`${name}\` (${entry.repository}) | ${key} | ${splits} | ${entry.race} | ${spread} |`);
  }
  return lines;
}
