import type { Db } from "mongodb";
import { wonInsert } from "../db/duplicate-key.js";
import type { DunningStepKind } from "../domain/collection/dunning.js";

/**
 * A dunning step taken: `<invoiceId>/<kind>/<day>`, inserted by whoever takes it. The unique `_id` makes each step
 * once per invoice, on any number of instances and after any crash (an insert, never an update).
 */
export interface DunningStepDoc {
  _id: string;
  accountId: string;
  invoiceId: string;
  kind: DunningStepKind;
  day: number;
  at: Date;
  createdAt: Date;
}

export function createDunningStepRepository(db: Db) {
  const steps = db.collection<DunningStepDoc>("dunning_steps");
  return {
    async ensureIndexes() {
      // An invoice's steps (a few per invoice: bounded by the policy).
      await steps.createIndex({ accountId: 1, invoiceId: 1 });
    },

    /** Takes the step: false when it was already taken. */
    take: (step: Omit<DunningStepDoc, "_id">) =>
      wonInsert(steps.insertOne({ _id: `${step.invoiceId}/${step.kind}/${step.day}`, ...step })),

    /** The latest day taken per kind for the invoice. */
    async latestTaken(accountId: string, invoiceId: string): Promise<Partial<Record<DunningStepKind, number>>> {
      const taken: Partial<Record<DunningStepKind, number>> = {};
      for (const { kind, day } of await steps.find({ accountId, invoiceId }).limit(100).toArray())
        taken[kind] = Math.max(day, taken[kind] ?? Number.NEGATIVE_INFINITY);
      return taken;
    },
  };
}
export type DunningStepRepository = ReturnType<typeof createDunningStepRepository>;
