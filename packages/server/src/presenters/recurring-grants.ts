import { fromMicros, type RecurringGrant } from "@billing/shared";
import { iso } from "../db/ids.js";
import type { RecurrenceDoc, RecurrenceStopDoc } from "../repositories/credit-recurrences.js";

/** A recurring grant of `POST /credits` as the API answers it, with its cancellation when it has one. */
export const presentRecurringGrant = (doc: RecurrenceDoc, stop: RecurrenceStopDoc | null): RecurringGrant => {
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
    effectiveAt: iso(doc.anchor),
    issuedThrough: stop ? Math.min(doc.issuedThrough, stop.lastPeriod) : doc.issuedThrough,
    ...(lastPeriod !== undefined && { lastPeriod }),
    ...(stop && { canceledAt: iso(stop.canceledAt) }),
    createdAt: iso(doc.createdAt),
  };
};
