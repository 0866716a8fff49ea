import type { Db } from "mongodb";

export function createCreditRepository(_db: Db) {
  return {
    async ensureIndexes() {},
  };
}
export type CreditRepository = ReturnType<typeof createCreditRepository>;
