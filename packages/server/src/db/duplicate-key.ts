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
