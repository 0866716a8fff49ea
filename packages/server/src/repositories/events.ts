import type { Db } from "mongodb";

export function createEventRepository(_db: Db) {
  return {
    async ensureIndexes() {},
  };
}
export type EventRepository = ReturnType<typeof createEventRepository>;
