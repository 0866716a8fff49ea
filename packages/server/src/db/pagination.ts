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
