import { MongoBulkWriteError } from "mongodb";

/**
 * A unique-index violation. MongoDB reports code 11000; FerretDB 1.24 does so on inserts and upserts
 * but reports updates that collide as InternalError (code 1) carrying SQLite's message.
 */
export function isDuplicateKeyError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 11000 || (code === 1 && typeof message === "string" && message.includes("UNIQUE constraint failed"));
}

/**
 * Whether this insert stored its document: false when a unique index already held its key (the race's loser, or a
 * repeat of an insert made before); any other error is thrown. How every race here is decided.
 */
export async function wonInsert(insert: Promise<unknown>): Promise<boolean> {
  try {
    await insert;
    return true;
  } catch (error) {
    if (isDuplicateKeyError(error)) return false;
    throw error;
  }
}

/** Positions of an unordered `insertMany` whose insert hit a unique index; any other write error is rethrown. */
export function duplicateKeyIndexes(error: unknown): Set<number> {
  if (!(error instanceof MongoBulkWriteError)) throw error;
  const writeErrors = [error.writeErrors].flat();
  if (writeErrors.length === 0 || !writeErrors.every(isDuplicateKeyError)) throw error;
  return new Set(writeErrors.map((writeError) => writeError.index));
}

/**
 * Which of an unordered `insertMany`'s documents it stored (their positions): each one's race decided by its own
 * unique insert, as wonInsert decides one, in one command for all of them.
 */
export async function wonInserts(insert: Promise<unknown>, count: number): Promise<Set<number>> {
  let lost = new Set<number>();
  try {
    await insert;
  } catch (error) {
    lost = duplicateKeyIndexes(error);
  }
  return new Set(Array.from({ length: count }, (_, index) => index).filter((index) => !lost.has(index)));
}
