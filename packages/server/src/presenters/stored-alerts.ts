import type { Alert, AlertPeriod } from "@billing/shared";
import type { ObjectId } from "mongodb";
import { iso } from "../db/ids.js";
import { quantityMicrosOf, unitsOfQuantityMicros } from "./money.js";

// An alert as the repository stores it (its thresholds, quantities of the meter's units, in micro-units) and as the
// API shows it.

export interface AlertDoc {
  _id: ObjectId;
  accountId: string;
  /** The customer's service id; null: every customer of the account. */
  customerId: string | null;
  meterKey: string;
  thresholdsMicros: number[];
  period: AlertPeriod;
  createdAt: Date;
  /** When the scheduler's sweep last evaluated it: the least recently swept alerts go first. */
  sweptAt: Date;
  /** The last customer the sweep evaluated for an every-customer alert; null: the walk starts over. */
  sweptThroughCustomerId: string | null;
}

/** The thresholds as stored: the API's decimals in micro-units. */
export const storedThresholds = (thresholds: readonly number[]): number[] => thresholds.map(quantityMicrosOf);

export const toAlert = (doc: AlertDoc): Alert => ({
  id: doc._id.toHexString(),
  customerId: doc.customerId,
  meterKey: doc.meterKey,
  thresholds: doc.thresholdsMicros.map(unitsOfQuantityMicros),
  period: doc.period,
  createdAt: iso(doc.createdAt),
});
