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
}

export interface IndexDeclaration {
  collection: string;
  name: string;
  key: [string, 1 | -1][];
  unique: boolean;
}

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

/**
 * The filters a query's condition amounts to: one per branch of a top-level `$or` (an index must serve each
 * branch), `$and` merged into its siblings.
 */
export function filtersOf(condition: Record<string, unknown> | undefined): Record<string, OperatorClass>[] {
  let filters: Record<string, OperatorClass>[] = [{}];
  for (const [field, value] of Object.entries(condition ?? {})) {
    if (field === "$and") {
      for (const part of value as Record<string, unknown>[]) {
        filters = filters.flatMap((filter) => filtersOf(part).map((branch) => ({ ...filter, ...branch })));
      }
    } else if (field === "$or") {
      const branches = (value as Record<string, unknown>[]).flatMap((branch) => filtersOf(branch));
      filters = filters.flatMap((filter) => branches.map((branch) => ({ ...filter, ...branch })));
    } else {
      filters = filters.map((filter) => ({ ...filter, [field]: classOf(value) }));
    }
  }
  return filters.map((filter) => Object.fromEntries(Object.entries(filter).sort(([a], [b]) => a.localeCompare(b))));
}

/** A sort or index key as the driver sends it: an object, or a Map (which keeps the order of its fields). */
type KeySpec = Record<string, unknown> | Map<string, unknown> | undefined;

const sortOf = (sort: KeySpec): [string, 1 | -1][] =>
  [...(sort instanceof Map ? sort.entries() : Object.entries(sort ?? {}))].map(([field, direction]) => [
    field,
    Number(direction) < 0 ? -1 : 1,
  ]);

const shapes = (collection: string, operation: string, filter: Record<string, unknown> | undefined, sort?: KeySpec) =>
  filtersOf(filter).map((fields): QueryShape => ({ collection, operation, filter: fields, sort: sortOf(sort) }));

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
 * fields (`$in` counts as one, in any order), then its sort fields in order, all in the index's direction or all
 * reversed, then its range fields (`$exists` counts as one). Every filtered field must be in those places, so no
 * document is read only to be thrown away. A condition of another kind (`$ne`, `$regex`…) is never served. The one
 * exception: `_id_` serves any filter with `_id` equality (a point lookup of one document).
 */
export function serves(index: IndexDeclaration, shape: QueryShape): boolean {
  if (index.collection !== shape.collection) return false;
  // `_id` equality names at most one document: `_id_` finds it, whatever else the filter checks on it.
  if (index.name === "_id_" && shape.filter._id === "equality") return true;
  const fields = Object.entries(shape.filter);
  if (fields.some(([, kind]) => kind === "other")) return false;
  const equality = new Set(fields.filter(([, kind]) => kind === "equality" || kind === "in").map(([field]) => field));
  // A sort on a field fixed by equality orders nothing: drop it. A range on a sort field is served by the sort's place.
  const sort = shape.sort.filter(([field]) => !equality.has(field));
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
  return `${shape.operation} {${filter}}${sort ? ` sort {${sort}}` : ""}`;
}
