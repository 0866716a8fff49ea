import { ObjectId, type Collection, type Document, type Filter, type WithId } from "mongodb";
import { CURSOR_PATTERN } from "@billing/shared";
import { ApiError, badRequest } from "../errors.js";
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
    throw badRequest("cursor is malformed: pass the nextCursor of a previous page", [{ path: "cursor", message: "malformed cursor" }]);
  }
  return new ObjectId(Buffer.from(cursor, "base64url").subarray(CURSOR_PREFIX.length));
}

/**
 * One page in ascending `_id` order (creation order; `_id` is unique, so the order is total).
 * Keyset pagination: the cursor is the last `_id` seen, so deep pages cost what the first does.
 */
export async function findPage<TSchema extends Document, T>(
  collection: Collection<TSchema>,
  filter: Filter<TSchema>,
  page: PageRequest,
  toResource: (doc: WithId<TSchema>) => T,
): Promise<Page<T>> {
  const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
  const pageFilter = (after ? { $and: [filter, { _id: { $gt: after } }] } : filter) as Filter<TSchema>;
  const [docs, total] = await Promise.all([
    collection.find(pageFilter).sort({ _id: 1 }).limit(page.limit + 1).toArray(),
    collection.countDocuments(filter),
  ]);
  const hasMore = docs.length > page.limit;
  const pageDocs = hasMore ? docs.slice(0, page.limit) : docs;
  const last = pageDocs.at(-1);
  return {
    items: pageDocs.map(toResource),
    total,
    hasMore,
    ...(hasMore && last ? { nextCursor: encodeCursor(last._id as ObjectId) } : {}),
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
    throw new ApiError("NOT_FOUND", "cursor names no item of this list: pass the id of the last item of the previous page", [
      { path: "cursor", message: "names no item of this list" },
    ]);
  }
  return doc as WithId<TSchema>;
}

/** Keyset condition "after (value, id)" for a list ordered by `key` ascending, then `_id` ascending. */
export const after = (key: string, value: unknown, id: ObjectId) => ({
  $or: [{ [key]: { $gt: value } }, { [key]: value, _id: { $gt: id } }],
});
