import type { Measurement, UsageDate } from "@billing/shared";
import type { ObjectId } from "mongodb";
import { iso } from "../db/ids.js";
import { quantityMicrosOf, unitsOf } from "./money.js";

// A measurement as the repository stores it (its value in micro-units, a 64-bit integer; its day as text) and as the
// API shows it.

/** One document per account, customer, meter and day; `day` ("YYYY-MM-DD") sorts and ranges as text. */
export interface MeasurementDoc {
  _id: ObjectId;
  accountId: string;
  customerId: string;
  meterId: string;
  day: string;
  /** Integer micro-units as a 64-bit integer, so that sums are exact on the server too. */
  valueMicros: bigint;
  createdAt: Date;
  updatedAt: Date;
}

const pad = (value: number, width: number) => String(value).padStart(width, "0");
export const toDay = ({ year, month, day }: UsageDate) => `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
const fromDay = (day: string): UsageDate => {
  const [year, month, dayOfMonth] = day.split("-").map(Number) as [number, number, number];
  return { year, month, day: dayOfMonth };
};

/** A measured value as stored: the API's decimal in micro-units, as a 64-bit integer. */
export const storedValueMicros = (value: number): bigint => BigInt(quantityMicrosOf(value));

/** Its value rounded once to the API's decimal (unitsOf), never through Number(bigint) first. */
export const toMeasurement = (doc: MeasurementDoc): Measurement => ({
  id: doc._id.toHexString(),
  customerId: doc.customerId,
  meterId: doc.meterId,
  usageDate: fromDay(doc.day),
  value: unitsOf(BigInt(doc.valueMicros)),
  createdAt: iso(doc.createdAt),
  updatedAt: iso(doc.updatedAt),
});
