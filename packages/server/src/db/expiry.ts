import type { Collection } from "mongodb";
import { isDuplicateKeyError } from "./duplicate-key.js";

/** A collection whose documents carry `expiresAt`, after which they may be deleted. */
export type ExpiringCollection = Collection<{ _id: string; expiresAt: Date }>;

/**
 * Deletes the documents of `collections` whose `expiresAt` has passed, at most once per period over all
 * instances: the caller that inserts the period's marker into the first collection (a unique `_id`, itself
 * expiring) does it, the others return at once. No
 * TTL index, since FerretDB 1.24 refuses `expireAfterSeconds`; and not per request, since FerretDB scans the
 * whole collection for such a delete. Nothing depends on when it runs: readers check ages themselves.
 */
export async function deleteExpired(
  collections: ExpiringCollection[],
  periodMs: number,
  now = Date.now(),
): Promise<void> {
  const periodStart = Math.floor(now / periodMs) * periodMs;
  try {
    await collections[0]?.insertOne({
      _id: `sweep ${new Date(periodStart).toISOString()}`,
      expiresAt: new Date(periodStart + periodMs),
    });
  } catch (error) {
    if (isDuplicateKeyError(error)) return;
    throw error;
  }
  for (const collection of collections) await collection.deleteMany({ expiresAt: { $lte: new Date(now) } });
}
