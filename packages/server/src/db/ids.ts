import { ObjectId } from "mongodb";

/** Parses a caller-given id; anything that is not a 24-hex ObjectId simply matches nothing. */
export const toObjectId = (id: string): ObjectId | undefined =>
  /^[0-9a-f]{24}$/i.test(id) ? new ObjectId(id.toLowerCase()) : undefined;

export const iso = (date: Date) => date.toISOString();
