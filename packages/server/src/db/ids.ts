import { ObjectId } from "mongodb";

/** Parses a caller-given id; anything that is not a 24-hex ObjectId simply matches nothing. */
export const toObjectId = (id: string): ObjectId | undefined =>
  /^[0-9a-f]{24}$/i.test(id) ? new ObjectId(id.toLowerCase()) : undefined;

/**
 * How a resource stores the id of another it references: an ObjectId as lowercase hex ("ABC…" and "abc…" name the
 * same resource), anything else as given (it matches nothing stored).
 */
export const canonicalId = (id: string): string => toObjectId(id)?.toHexString() ?? id;

export const iso = (date: Date) => date.toISOString();
