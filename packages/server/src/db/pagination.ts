import type { Collection, Document, Filter, ObjectId, WithId } from "mongodb";
import { badRequest } from "../errors.js";
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

/** Cursors are opaque to callers: a versioned, base64url-encoded position in the `_id` order. */
const CURSOR_PREFIX = "v1:";
export const encodeCursor = (id: ObjectId) => Buffer.from(CURSOR_PREFIX + id.toHexString()).toString("base64url");

export function decodeCursor(cursor: string): ObjectId {
  const decoded = Buffer.from(cursor, "base64url").toString("utf8");
  const id = decoded.startsWith(CURSOR_PREFIX) ? toObjectId(decoded.slice(CURSOR_PREFIX.length)) : undefined;
  if (!id || encodeCursor(id) !== cursor) {
    throw badRequest("cursor is malformed: pass the nextCursor of a previous page", [
      { path: "cursor", message: "malformed cursor" },
    ]);
  }
  return id;
}

/** A list's order: one unique field, ascending, and how its cursors carry a position in it. */
export interface KeysetOrder {
  field: string;
  encode(value: unknown): string;
  /** The position a cursor names; a 400 naming `cursor` when it is not one of this order's cursors. */
  decode(cursor: string): unknown;
}

/** Creation order of documents whose `_id` is a fresh ObjectId. */
export const ID_ORDER: KeysetOrder = { field: "_id", encode: (value) => encodeCursor(value as ObjectId), decode: decodeCursor };

const SEQ_CURSOR_PREFIX = "s1:";

/** The order of a per-account sequence number (1, 2, …): the order in which the documents were stored. */
export const SEQ_ORDER: KeysetOrder = {
  field: "seq",
  encode: (value) => Buffer.from(SEQ_CURSOR_PREFIX + String(value)).toString("base64url"),
  decode(cursor) {
    const decoded = Buffer.from(cursor, "base64url").toString("utf8");
    const seq = decoded.startsWith(SEQ_CURSOR_PREFIX) ? Number(decoded.slice(SEQ_CURSOR_PREFIX.length)) : Number.NaN;
    if (!Number.isSafeInteger(seq) || seq < 1 || SEQ_ORDER.encode(seq) !== cursor) {
      throw badRequest("cursor is malformed: pass the nextCursor of a previous page", [{ path: "cursor", message: "malformed cursor" }]);
    }
    return seq;
  },
};

/**
 * One page in the ascending order of a unique field (`_id` by default: creation order), so the order is total.
 * Keyset pagination: the cursor is the last position seen, so deep pages cost what the first does.
 */
export async function findPage<TSchema extends Document, T>(
  collection: Collection<TSchema>,
  filter: Filter<TSchema>,
  page: PageRequest,
  toResource: (doc: WithId<TSchema>) => T,
  order: KeysetOrder = ID_ORDER,
): Promise<Page<T>> {
  const after = page.cursor === undefined ? undefined : order.decode(page.cursor);
  const pageFilter = (after === undefined ? filter : { $and: [filter, { [order.field]: { $gt: after } }] }) as Filter<TSchema>;
  const [docs, total] = await Promise.all([
    collection.find(pageFilter).sort({ [order.field]: 1 }).limit(page.limit + 1).toArray(),
    collection.countDocuments(filter),
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
 * names, within the same list's scope, or a 400 when it names none.
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
    throw badRequest("cursor must be the id of the last item of the previous page of this list", [
      { path: "cursor", message: "names no item of this list" },
    ]);
  }
  return doc as WithId<TSchema>;
}

/** Keyset condition "after (value, id)" for a list ordered by `key` ascending, then `_id` ascending. */
export const after = (key: string, value: unknown, id: ObjectId) => ({
  $or: [{ [key]: { $gt: value } }, { [key]: value, _id: { $gt: id } }],
});
