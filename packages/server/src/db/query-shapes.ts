/**
 * Query shapes: what a command asks of a collection, without its values (which fields it filters on, how,
 * and how it sorts), and the rule that says whether an index serves it on MongoDB. Pure functions: the capture
 * (test/support/query-shape-capture.ts) feeds them the driver's `commandStarted` events, `pnpm check:indexes`
 * reports.
 */

import type { Document } from "mongodb";

/** How a filter uses a field, by what an index can do with it. */
export type OperatorClass = "equality" | "in" | "range" | "exists" | "other";

export interface QueryShape {
  collection: string;
  /** `find`, `count`, `aggregate`, `update`, `delete`, `findAndModify`. */
  operation: string;
  /** Field → how it is filtered, fields in name order. */
  filter: Record<string, OperatorClass>;
  /** The sort, in order: field → 1 or -1. */
  sort: [string, 1 | -1][];
  /**
   * How many index scans an index would merge for the sort: the product of the `$in` lists' lengths (1 without
   * `$in`). Told only when over MAX_SORTED_IN_SCANS, as only then does it change the answer.
   */
  inScans?: number;
  /**
   * The sort's first field not fixed by equality, when every branch of a `$or` bounds where its scan starts but the
   * top-level conditions do not, or start earlier: a plan by the top-level bounds alone would read from there (see
   * widerThanItsOr).
   */
  startsBeforeItsOr?: string;
}

export interface IndexDeclaration {
  collection: string;
  name: string;
  key: [string, 1 | -1][];
  unique: boolean;
}

/**
 * MongoDB serves an `$in` ahead of the sort fields as one index scan per value, merged in order, only up to this many
 * scans (`internalQueryMaxScansToExplode`); past it, it sorts the documents in memory. Without a sort, `$in` values
 * are index bounds whatever their number. The usage read's `customerAlias $in` stays under it: a customer has at
 * most MAX_ALIASES_PER_CUSTOMER aliases (100) and its externalId.
 */
export const MAX_SORTED_IN_SCANS = 200;

const RANGE_OPERATORS = new Set(["$gt", "$gte", "$lt", "$lte"]);

/** The class of one field's condition: a plain value (or `$eq`) is equality; operators decide the rest. */
function classOf(condition: unknown): OperatorClass {
  if (condition === null || typeof condition !== "object" || Array.isArray(condition) || isBsonValue(condition))
    return "equality";
  const operators = Object.keys(condition);
  if (operators.length === 0 || !operators.every((operator) => operator.startsWith("$"))) return "equality";
  if (operators.every((operator) => operator === "$eq")) return "equality";
  if (operators.every((operator) => operator === "$in")) return "in";
  if (operators.every((operator) => RANGE_OPERATORS.has(operator))) return "range";
  if (operators.every((operator) => operator === "$exists")) return "exists";
  return "other";
}

/** ObjectId, Date, Long, Decimal128…: values, not operator documents. */
const isBsonValue = (value: object) => value instanceof Date || "_bsontype" in value;

/** Tighter first: where two conditions on one field meet (`$and`, a `$or` branch), the tighter decides the bounds. */
const TIGHTNESS: OperatorClass[] = ["equality", "in", "range", "exists", "other"];

/** One field's condition in a branch: its class, and how many values an `$in` lists (1 otherwise). */
interface FieldCondition {
  kind: OperatorClass;
  values: number;
}

type Branch = Record<string, FieldCondition>;

const conditionOf = (value: unknown): FieldCondition => {
  const kind = classOf(value);
  return { kind, values: kind === "in" ? ((value as { $in: unknown[] }).$in?.length ?? 0) : 1 };
};

/** Both conditions at once: the tighter one's bounds (an `$in` and an equality: one value). */
function intersect(a: FieldCondition | undefined, b: FieldCondition): FieldCondition {
  if (!a) return b;
  const tighter = TIGHTNESS.indexOf(a.kind) <= TIGHTNESS.indexOf(b.kind) ? a : b;
  return tighter.kind === "in" && a.kind === b.kind ? { kind: "in", values: Math.min(a.values, b.values) } : tighter;
}

function merge(into: Branch, other: Branch): Branch {
  const merged = { ...into };
  for (const [field, condition] of Object.entries(other)) merged[field] = intersect(merged[field], condition);
  return merged;
}

/**
 * The branches a query's condition amounts to: one per branch of a `$or` (an index must serve each), each with the
 * conditions outside the `$or` (the top-level bounds) intersected in, whatever the order of the keys; `$and` merged.
 */
function branchesOf(condition: Record<string, unknown> | undefined): Branch[] {
  let branches: Branch[] = [{}];
  for (const [field, value] of Object.entries(condition ?? {})) {
    const parts =
      field === "$and"
        ? (value as Record<string, unknown>[]).map(branchesOf)
        : field === "$or"
          ? [(value as Record<string, unknown>[]).flatMap(branchesOf)]
          : [[{ [field]: conditionOf(value) }]];
    for (const part of parts) branches = branches.flatMap((branch) => part.map((other) => merge(branch, other)));
  }
  return branches;
}

/** A branch as a shape's filter: field → class, fields in name order. */
const filterOf = (branch: Branch): Record<string, OperatorClass> =>
  Object.fromEntries(
    Object.entries(branch)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([field, { kind }]) => [field, kind]),
  );

/** The filters of a query's condition, one per branch (see branchesOf). */
export const filtersOf = (condition: Record<string, unknown> | undefined) => branchesOf(condition).map(filterOf);

/** The scans an index merges for a sort: the product of the branch's `$in` lengths. */
const inScansOf = (branch: Branch) =>
  Object.values(branch).reduce((scans, { kind, values }) => (kind === "in" ? scans * values : scans), 1);

/** Where a bound lets a scan start, as a value that orders like it: a number, or a text. */
type Start = number | string;

/** A bound's value as a Start: undefined for kinds this does not order. */
function orderable(value: unknown): Start | undefined {
  if (typeof value === "number" || typeof value === "string") return value;
  if (value instanceof Date) return value.getTime();
  if (value !== null && typeof value === "object" && (value as { _bsontype?: string })._bsontype === "ObjectId")
    return (value as { toHexString(): string }).toHexString();
  return undefined;
}

/** Whether a scan in `direction` (1 ascending, -1 descending) reaches `a` at or after `b`; false when incomparable. */
const atOrAfter = (a: Start, b: Start, direction: 1 | -1) =>
  typeof a === typeof b && (direction === 1 ? a >= b : a <= b);

/** Where a condition on a field lets a scan in `direction` start; undefined when it does not bound that side. */
function startOf(condition: unknown, direction: 1 | -1): Start | undefined {
  const kind = classOf(condition);
  if (kind === "equality") return orderable(condition);
  if (kind !== "range" && kind !== "in") return undefined;
  const operators = condition as Record<string, unknown>;
  const starts =
    kind === "in"
      ? (operators.$in as unknown[]).map(orderable)
      : (direction === 1 ? ["$gt", "$gte"] : ["$lt", "$lte"])
          .filter((op) => op in operators)
          .map((op) => orderable(operators[op]));
  if (starts.length === 0 || starts.some((start) => start === undefined)) return undefined;
  // An `$in` starts at its first value in the scan's order; two range bounds on one side, at the later.
  const pickFirst = kind === "in";
  return (starts as Start[]).reduce((a, b) => (atOrAfter(a, b, direction) === pickFirst ? b : a));
}

/**
 * Whether a plan by the top-level bounds alone (the `$or` left as a filter, which MongoDB may choose) starts its sorted
 * scan before every branch of a `$or` does: it would read the keys no branch keeps, from the start of the top-level
 * range (a keyset page's window) to the cursor. Judged on the field the sorted scan starts on, by the values sent; a
 * start that cannot be compared counts as earlier.
 */
function widerThanItsOr(condition: Record<string, unknown> | undefined, field: string, direction: 1 | -1): boolean {
  const topStarts: Start[] = [];
  const ors: Record<string, unknown>[][] = [];
  const collect = (part: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(part)) {
      if (key === "$and") for (const inner of value as Record<string, unknown>[]) collect(inner);
      else if (key === "$or") ors.push(value as Record<string, unknown>[]);
      else if (key === field) {
        const start = startOf(value, direction);
        if (start !== undefined) topStarts.push(start);
      }
    }
  };
  collect(condition ?? {});
  return ors.some((branches) => {
    const starts = branches.map((branch) => (field in branch ? startOf(branch[field], direction) : undefined));
    // A branch that does not bound the field scans from the range's start anyway: the top-level bounds are no wider.
    if (starts.some((start) => start === undefined)) return false;
    // The top-level scan starts at its latest bound: no wider when that is at or after some branch's start.
    return !starts.some((start) => topStarts.some((top) => atOrAfter(top, start as Start, direction)));
  });
}

/** A sort or index key as the driver sends it: an object, or a Map (which keeps the order of its fields). */
type KeySpec = Record<string, unknown> | Map<string, unknown> | undefined;

const sortOf = (sort: KeySpec): [string, 1 | -1][] =>
  [...(sort instanceof Map ? sort.entries() : Object.entries(sort ?? {}))].map(([field, direction]) => [
    field,
    Number(direction) < 0 ? -1 : 1,
  ]);

function shapes(
  collection: string,
  operation: string,
  condition: Record<string, unknown> | undefined,
  sortSpec?: KeySpec,
): QueryShape[] {
  const sort = sortOf(sortSpec);
  const branches = branchesOf(condition);
  // The field the sorted scan starts on: the first one of the sort that equality does not fix in every branch.
  const first = sort.find(([field]) => !branches.every((branch) => branch[field]?.kind === "equality"));
  const startsBeforeItsOr = first && widerThanItsOr(condition, first[0], first[1]) ? first[0] : undefined;
  return branches.map((branch): QueryShape => {
    const inScans = inScansOf(branch);
    return {
      collection,
      operation,
      filter: filterOf(branch),
      sort,
      ...(inScans > MAX_SORTED_IN_SCANS && { inScans }),
      ...(startsBeforeItsOr && { startsBeforeItsOr }),
    };
  });
}

/** A command as the driver sends it: any BSON document. */
type Command = Document;

/** The query shapes of one command (`commandStarted`'s `command`); none for writes without a query. */
export function shapesOfCommand(commandName: string, command: Command): QueryShape[] {
  const collection = String(command[commandName]);
  switch (commandName) {
    case "find":
      return shapes(collection, "find", command.filter, command.sort);
    case "count":
      return shapes(collection, "count", command.query);
    case "aggregate": {
      const [first, second] = (command.pipeline ?? []) as Command[];
      const match = first?.$match as Record<string, unknown> | undefined;
      const sort = (match ? second?.$sort : first?.$sort) as KeySpec;
      const counts = (match ? second : first)?.$group !== undefined;
      return shapes(collection, counts ? "count" : "aggregate", match, sort);
    }
    case "update":
      return (command.updates as Command[]).flatMap((update) => shapes(collection, "update", update.q));
    case "delete":
      return (command.deletes as Command[]).flatMap((deletion) => shapes(collection, "delete", deletion.q));
    case "findAndModify":
      return shapes(collection, "findAndModify", command.query, command.sort);
    default:
      return [];
  }
}

/** The index declarations of a `createIndexes` command. */
export function indexesOfCommand(command: Command): IndexDeclaration[] {
  const collection = String(command.createIndexes);
  return (command.indexes as Command[]).map((index) => ({
    collection,
    name: String(index.name),
    key: sortOf(index.key),
    unique: index.unique === true,
  }));
}

/** Every collection has this one, unique, on `_id`. */
export const idIndex = (collection: string): IndexDeclaration => ({
  collection,
  name: "_id_",
  key: [["_id", 1]],
  unique: true,
});

/**
 * Whether an index serves a shape by the equality–sort–range rule: its key starts with the shape's equality
 * fields (`$in` counts as one, in any order, while a sort merges at most MAX_SORTED_IN_SCANS scans), then its sort
 * fields in order, all in the index's direction or all reversed, then its range fields (`$exists` counts as one).
 * Every filtered field must be in those places, so no document is read only to be thrown away. A condition of another
 * kind (`$ne`, `$regex`…) is never served, nor a `$or` whose top-level bounds start the sorted scan before all its
 * branches do. The one exception: `_id_` serves any filter with `_id` equality or `$in` (point lookups).
 */
export function serves(index: IndexDeclaration, shape: QueryShape): boolean {
  if (index.collection !== shape.collection) return false;
  // `_id` equality names at most one document, an `_id` list as many as it lists: `_id_` finds each.
  if (index.name === "_id_" && (shape.filter._id === "equality" || shape.filter._id === "in")) return true;
  if (shape.startsBeforeItsOr) return false;
  const fields = Object.entries(shape.filter);
  if (fields.some(([, kind]) => kind === "other")) return false;
  const equality = new Set(fields.filter(([, kind]) => kind === "equality" || kind === "in").map(([field]) => field));
  // A sort on a field fixed by equality orders nothing: drop it. A range on a sort field is served by the sort's place.
  const sort = shape.sort.filter(([field]) => !equality.has(field));
  // Past MAX_SORTED_IN_SCANS, MongoDB sorts in memory rather than merging one sorted scan per `$in` value.
  if (sort.length > 0 && (shape.inScans ?? 1) > MAX_SORTED_IN_SCANS) return false;
  const sorted = new Set(sort.map(([field]) => field));
  const range = new Set(
    fields
      .filter(([field, kind]) => (kind === "range" || kind === "exists") && !sorted.has(field))
      .map(([field]) => field),
  );
  const key = index.key;
  if (key.length < equality.size + sort.length + range.size) return false;
  const leading = key.slice(0, equality.size);
  const sorting = key.slice(equality.size, equality.size + sort.length);
  const trailing = key.slice(equality.size + sort.length, equality.size + sort.length + range.size);
  // The sort is served by the index's next fields in the same order, each in the sort's direction or all reversed.
  const text = (fields: [string, 1 | -1][], sign: 1 | -1) => fields.map(([field, order]) => `${field}:${order * sign}`);
  const served = text(sorting, 1).join();
  const sortServed = served === text(sort, 1).join() || served === text(sort, -1).join();
  return sortServed && leading.every(([field]) => equality.has(field)) && trailing.every(([field]) => range.has(field));
}

/** The first of `indexes` that serves the shape (`_id_` first), or undefined. */
export const servingIndex = (shape: QueryShape, indexes: IndexDeclaration[]) =>
  [idIndex(shape.collection), ...indexes].find((index) => serves(index, shape));

/** A stable text for a shape, e.g. `find {accountId: equality, seq: range} sort {seq: 1}`. */
export function describeShape(shape: QueryShape): string {
  const filter = Object.entries(shape.filter)
    .map(([field, kind]) => `${field}: ${kind}`)
    .join(", ");
  const sort = shape.sort.map(([field, order]) => `${field}: ${order}`).join(", ");
  const scans = shape.inScans ? ` ($in: ${shape.inScans} sorted scans)` : "";
  const wider = shape.startsBeforeItsOr ? ` (${shape.startsBeforeItsOr}: top-level bound wider than its $or)` : "";
  return `${shape.operation} {${filter}}${sort ? ` sort {${sort}}` : ""}${scans}${wider}`;
}
