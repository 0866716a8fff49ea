import type { Db } from "mongodb";

export function createMeasurementRepository(_db: Db) {
  return {
    async ensureIndexes() {},
  };
}
export type MeasurementRepository = ReturnType<typeof createMeasurementRepository>;
