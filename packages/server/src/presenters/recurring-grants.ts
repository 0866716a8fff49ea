import { fromMicros, type RecurringGrant } from "@billing/shared";
import type { Recurrence } from "../domain/credit-recurrence.js";
import type { Micros } from "../domain/money/micros.js";

/** What the presenter reads of a stored recurring grant (repositories/credit-recurrences.ts' RecurrenceDoc). */
interface StoredRecurringGrant extends Recurrence {
  _id: string;
  customerId: string;
  amountMicros: Micros;
  currency: string;
  priority: number;
  issuedThrough: number;
  createdAt: Date;
}

/** A recurring grant of `POST /credits` as the API answers it, with its cancellation when it has one. */
export const presentRecurringGrant = (
  doc: StoredRecurringGrant,
  stop: { lastPeriod: number; canceledAt: Date } | null,
): RecurringGrant => {
  const lastPeriod = stop ? Math.min(stop.lastPeriod, doc.count ?? stop.lastPeriod) : doc.count;
  return {
    id: doc._id,
    customerId: doc.customerId,
    amount: fromMicros(doc.amountMicros),
    currency: doc.currency,
    priority: doc.priority,
    recurrence: {
      every: { unit: "MONTH", value: doc.everyMonths },
      ...(doc.count !== undefined && { count: doc.count }),
      ...(doc.rolloverMaxMicros !== undefined && { rollover: { maxAmount: fromMicros(doc.rolloverMaxMicros) } }),
    },
    effectiveAt: doc.anchor.toISOString(),
    issuedThrough: stop ? Math.min(doc.issuedThrough, stop.lastPeriod) : doc.issuedThrough,
    ...(lastPeriod !== undefined && { lastPeriod }),
    ...(stop && { canceledAt: stop.canceledAt.toISOString() }),
    createdAt: doc.createdAt.toISOString(),
  };
};
