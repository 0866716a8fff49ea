import type { Db } from "mongodb";

export function createContractRepository(_db: Db) {
  return {
    async ensureIndexes() {},
  };
}
export type ContractRepository = ReturnType<typeof createContractRepository>;
