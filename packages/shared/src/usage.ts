import { z } from "zod";
import { DAY_MS, resourceRef } from "./common.js";
import { meterAggregation, meterKey } from "./meter.js";

/** Ten years of days: a usage answer lists at most one entry per day, so its size stays bounded. */
export const MAX_USAGE_DAYS = 3660;

/** A UTC calendar day written "YYYY-MM-DD": `format: date` in the document, which states the calendar rule too. */
export const calendarDay = z.iso.date({ message: "must be a calendar day written YYYY-MM-DD" });
const isDayText = (text: string) => calendarDay.safeParse(text).success;

export const usageQuery = z
  .object({
    customerId: resourceRef.meta({ description: "Id or externalId of a customer of the caller's account." }),
    meterKey: meterKey.meta({
      description: "A meter's key; a key no meter has reads the measurements of that meterId.",
    }),
    startDate: calendarDay.meta({ description: "First day (UTC), inclusive." }),
    endDate: calendarDay.meta({ description: "Day (UTC) the period ends before: exclusive." }),
  })
  .superRefine(({ startDate, endDate }, ctx) => {
    // Zod runs this even when a day failed its own check: that day's field already carries the issue.
    if (!isDayText(startDate) || !isDayText(endDate)) return;
    const days = (Date.parse(endDate) - Date.parse(startDate)) / DAY_MS;
    if (!(days > 0)) ctx.addIssue({ code: "custom", path: ["endDate"], message: "must be after startDate" });
    if (days > MAX_USAGE_DAYS)
      ctx.addIssue({ code: "custom", path: ["endDate"], message: `at most ${MAX_USAGE_DAYS} days after startDate` });
  });
export type UsageQuery = z.infer<typeof usageQuery>;

export const usageSource = z.enum(["EVENTS", "MEASUREMENT"]).meta({ id: "UsageSource" });

export const usage = z
  .object({
    customerId: z.string(),
    meterKey: z.string(),
    aggregation: meterAggregation.meta({
      description: "The meter's; SUM for a key that names no meter (its measurements are summed).",
    }),
    value: z.number().min(0).meta({ description: "Usage of the whole period, as the billing engine prices it." }),
    days: z.array(z.object({ date: z.string(), value: z.number().min(0), source: usageSource })).meta({
      description:
        "Each day with a measurement or a counted event, in order. A measurement replaces that day's events.",
    }),
  })
  .meta({ id: "Usage" });
export type Usage = z.infer<typeof usage>;
export const usageResponse = z.object({ usage });
