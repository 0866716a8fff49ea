import type { Measure, RollupGroup } from "../domain/usage/rollup.js";

// A usage rollup's groups as the repository stores them (repositories/usage-rollups.ts) and as the engine reads them.

/** Micro-units as decimal text: one event may carry 10^21 micro-units, past a 64-bit integer. */
interface StoredMeasure extends Omit<Measure, "sumMicros" | "maxMicros" | "latestMicros"> {
  sumMicros: string;
  maxMicros: string;
  latestMicros: string;
}

export interface StoredGroup extends Omit<RollupGroup, "measures"> {
  measures: StoredMeasure[];
}

export const toStored = (groups: RollupGroup[]): StoredGroup[] =>
  groups.map((group) => ({
    ...group,
    measures: group.measures.map((measure) => ({
      ...measure,
      sumMicros: String(measure.sumMicros),
      maxMicros: String(measure.maxMicros),
      latestMicros: String(measure.latestMicros),
    })),
  }));

const fromStored = (groups: StoredGroup[]): RollupGroup[] =>
  groups.map((group) => ({
    ...group,
    measures: group.measures.map((measure) => ({
      ...measure,
      sumMicros: BigInt(measure.sumMicros),
      maxMicros: BigInt(measure.maxMicros),
      latestMicros: BigInt(measure.latestMicros),
    })),
  }));

/** One day's rollup of some keys: the groups, and the dimension keys all of them kept. */
export interface DayRollup {
  dimensionKeys?: string[] | undefined;
  groups: RollupGroup[];
}

export const toDayRollup = (doc: { dimensionKeys?: string[]; groups: StoredGroup[] }): DayRollup => ({
  dimensionKeys: doc.dimensionKeys,
  groups: fromStored(doc.groups),
});
export const toStoredRollup = ({ dimensionKeys, groups }: DayRollup) => ({
  ...(dimensionKeys && { dimensionKeys }),
  groups: toStored(groups),
});

/**
 * When the usage of documents merged into one was stored (late usage, issue 45): the latest of theirs, or undefined
 * when one of them does not say (stored before rollups recorded it: unknown, so read as stored now).
 */
export function latestStoredAt(docs: readonly { storedAt?: Date }[]): Date | undefined {
  let latest: Date | undefined;
  for (const { storedAt } of docs) {
    if (!storedAt) return undefined;
    if (!latest || storedAt > latest) latest = storedAt;
  }
  return latest;
}
