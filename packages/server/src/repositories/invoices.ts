import type { Db } from "mongodb";

export function createInvoiceRepository(_db: Db) {
  return {
    async ensureIndexes() {},
  };
}
export type InvoiceRepository = ReturnType<typeof createInvoiceRepository>;
