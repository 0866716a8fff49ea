import { CURSOR_PATTERN } from "@billing/shared";
import { type Collection, type Document, type Filter, ObjectId, type WithId } from "mongodb";
import { badRequest, DomainError } from "../domain/errors.js";
import { toObjectId } from "./ids.js";

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}

export interface Page<T> {
  items: T[];
  total: number;
  hasMore: boolean;
  nextCursor?: string;
}

/**
 * Cursors are opaque to callers: a versioned, base64url-encoded position in the `_id` order, "v2:" and the id's 12
 * bytes. Every string of CURSOR_PATTERN decodes to one (v1 cursors, the id's hex text, are no longer read).
 */
const CURSOR_PREFIX = Buffer.from("v2:");
export const encodeCursor = (id: ObjectId) => Buffer.concat([CURSOR_PREFIX, id.id]).toString("base64url");

export function decodeCursor(cursor: string): ObjectId {
  if (!CURSOR_PATTERN.test(cursor)) {
    throw badRequest("cursor is malformed: pass the nextCursor of a previous page", [
      { path: "cursor", message: "malformed cursor" },
    ]);
  }
  return new ObjectId(Buffer.from(cursor, "base64url").subarray(CURSOR_PREFIX.length));
}

/** A list's order: one unique field, ascending unless `descending`, and how its cursors carry a position in it. */
export interface KeysetOrder {
  field: string;
  descending?: boolean;
  encode(value: unknown): string;
  /** The position a cursor names; a 400 naming `cursor` when it is not one of this order's cursors. */
  decode(cursor: string): unknown;
}

/** Creation order of documents whose `_id` is a fresh ObjectId. */
export const ID_ORDER: KeysetOrder = {
  field: "_id",
  encode: (value) => encodeCursor(value as ObjectId),
  decode: decodeCursor,
};

/** Newest first, for documents whose `_id` is a fresh ObjectId. */
export const NEWEST_FIRST: KeysetOrder = { ...ID_ORDER, descending: true };

/**
 * The order of a per-account sequence number (1, 2, …): the order in which the documents were stored. Its cursors
 * have the same form as the others (12 bytes), the number in the last 8: every cursor of the pattern is a position.
 */
export const SEQ_ORDER: KeysetOrder = {
  field: "seq",
  encode(value) {
    const bytes = Buffer.alloc(12);
    bytes.writeBigUInt64BE(BigInt(value as number), 4);
    return encodeCursor(new ObjectId(bytes));
  },
  decode(cursor) {
    const seq = Buffer.from(decodeCursor(cursor).id).readBigUInt64BE(4);
    // A position past every sequence number a collection can reach: the page after it is empty.
    return seq > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(seq);
  },
};

/**
 * One page in the order of a unique field (`_id` ascending by default: creation order), so the order is total.
 * Keyset pagination: the cursor is the last position seen, so deep pages cost what the first does. `countTotal`
 * answers `total`: a list kept counted passes its count (repositories/list-counts.ts), others count every match.
 */
export async function findPage<TSchema extends Document, T>(
  collection: Collection<TSchema>,
  filter: Filter<TSchema>,
  page: PageRequest,
  toResource: (doc: WithId<TSchema>) => T,
  order: KeysetOrder = ID_ORDER,
  countTotal: () => Promise<number> = () => collection.countDocuments(filter),
): Promise<Page<T>> {
  const after = page.cursor === undefined ? undefined : order.decode(page.cursor);
  const beyond = order.descending ? "$lt" : "$gt";
  const pageFilter = (
    after === undefined ? filter : { $and: [filter, { [order.field]: { [beyond]: after } }] }
  ) as Filter<TSchema>;
  const [docs, total] = await Promise.all([
    collection
      .find(pageFilter)
      .sort({ [order.field]: order.descending ? -1 : 1 })
      .limit(page.limit + 1)
      .toArray(),
    countTotal(),
  ]);
  const hasMore = docs.length > page.limit;
  const pageDocs = hasMore ? docs.slice(0, page.limit) : docs;
  const last = pageDocs.at(-1) as Document | undefined;
  return {
    items: pageDocs.map(toResource),
    total,
    hasMore,
    ...(hasMore && last ? { nextCursor: order.encode(last[order.field]) } : {}),
  };
}

/**
 * Lists whose cursor is the id of the last item received (credit entries, events): the document that id
 * names, within the same list's scope, or a 404 when it names none (a malformed id is refused by the schema).
 */
export async function resolveIdCursor<TSchema extends Document>(
  collection: Collection<TSchema>,
  scope: Filter<TSchema>,
  cursor: string | undefined,
): Promise<WithId<TSchema> | undefined> {
  if (cursor === undefined) return undefined;
  const _id = toObjectId(cursor);
  const doc = _id && (await collection.findOne({ $and: [scope, { _id }] } as Filter<TSchema>));
  if (!doc) {
    const message = "cursor names no item of this list: pass the id of the last item of the previous page";
    throw new DomainError("NOT_FOUND", message, [{ path: "cursor", message: "names no item of this list" }]);
  }
  return doc as WithId<TSchema>;
}

/**
 * Keyset condition "after (value, id)" for a list ordered by `key` ascending, then `_id` ascending. The top-level
 * `key ≥ value` repeats what the `$or` implies, so that a plan by the top-level bounds alone (MongoDB may pick it and
 * filter the `$or`) starts its scan at the cursor, not at the start of the list's range: a deep page costs a first.
 */
export const after = (key: string, value: unknown, id: ObjectId) => ({
  [key]: { $gte: value },
  $or: [{ [key]: { $gt: value } }, { [key]: value, _id: { $gt: id } }],
});
