import { z } from "zod";
import { requiredText, resourceRef, timestamp } from "./common.js";
import { money } from "./money.js";

/** Whether year-month-day names a real day (2023-02-29 does not). */
export const isCalendarDay = ({ year, month, day }: { year: number; month: number; day: number }) => {
  const date = new Date(Date.UTC(year, month - 1, day));
  // Date.UTC rolls 2023-02-29 over to March 1st: a real day is one that comes back unchanged.
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
};

export const usageDate = z
  .strictObject({
    year: z.number().int().min(2000).max(2999),
    month: z.number().int().min(1).max(12),
    day: z.number().int().min(1).max(31),
  })
  .refine(isCalendarDay, { path: ["day"], message: "not a day of that month" })
  .meta({
    id: "UsageDate",
    description: "The calendar day (UTC) the usage took place: a day of that month (February 29 in leap years only).",
    // isCalendarDay as the document states it: none of these holds for a real day, and one holds for every other
    // (the 31st of a short month, February 30th or 31st, February 29th outside a leap year). A `not`, and `enum`
    // rather than `const`: client generators build no type from a `not`, where an `anyOf` beside the properties
    // became a union of four partial objects (openapi-python-client; docs/decisions.md, "A Python client").
    not: {
      anyOf: [
        { properties: { day: { minimum: 31 }, month: { enum: [2, 4, 6, 9, 11] } } },
        { properties: { day: { minimum: 30 }, month: { enum: [2] } } },
        {
          properties: {
            day: { minimum: 29 },
            month: { enum: [2] },
            year: { not: { anyOf: [{ multipleOf: 400 }, { multipleOf: 4, not: { multipleOf: 100 } }] } },
          },
        },
      ],
    },
  });
export type UsageDate = z.infer<typeof usageDate>;

/** Fields a caller writes; the service adds id, createdAt and updatedAt. */
const measurementFields = {
  customerId: resourceRef.meta({
    description: "Id or externalId of a customer of the caller's account; stored, and answered, as its id.",
  }),
  meterId: requiredText(200).meta({ description: "The meter or product being measured." }),
  usageDate,
  // Same rule as money (≥ 0, ≤ 1e9, at most 6 decimals): usage is summed as exact integer micro-units.
  value: money.meta({
    description:
      "Units consumed on that day, at most 6 decimal places. Replaces any earlier value for the same customer, " +
      "meter and day.",
  }),
};

export const measurementCreate = z.strictObject(measurementFields).meta({ id: "MeasurementCreate" });
export type MeasurementCreate = z.infer<typeof measurementCreate>;

export const measurement = z
  .object({
    id: z.string(),
    ...measurementFields,
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: "Measurement" });
export type Measurement = z.infer<typeof measurement>;
