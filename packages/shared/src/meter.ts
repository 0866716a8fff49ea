import { z } from "zod";
import { pageInfo, pageQuery, requiredText, resourceRef, text, timestamp, unicodeString } from "./common.js";

export const meterAggregation = z
  .enum(["COUNT", "SUM", "MAX", "LATEST", "UNIQUE_COUNT"])
  .meta({ id: "MeterAggregation", description: "How a meter turns matching events into usage." });
export type MeterAggregation = z.infer<typeof meterAggregation>;

/** A meter's key: the `meterId` of measurements and the `catalogProductId` of products; trimmed like both. */
export const meterKey = requiredText(200).meta({
  description: "Unique in the account; the meterId of measurements and the catalogProductId of products.",
});

/** Event data keys are the caller's exact strings: not trimmed. */
const dataKey = unicodeString().min(1).max(200);

export const meterFilter = z
  .strictObject({
    property: dataKey.meta({ description: "A key of the event's data." }),
    in: z.array(unicodeString().max(1000)).min(1).max(100).meta({ description: "The values that let an event count." }),
  })
  .meta({ id: "MeterFilter" });
export type MeterFilter = z.infer<typeof meterFilter>;

const meterFields = {
  key: meterKey,
  displayName: text(200).optional(),
  eventName: requiredText(200).meta({ description: "The name of the events this meter counts." }),
  aggregation: meterAggregation,
  valueProperty: dataKey.optional().meta({
    description: "The data key read by SUM, MAX, LATEST and UNIQUE_COUNT: required with them, refused with COUNT.",
  }),
  filters: z
    .array(meterFilter)
    .max(20)
    .optional()
    .meta({ description: "An event counts only if, for each filter, its data[property] is one of `in`." }),
};

export const meterCreate = z
  .strictObject(meterFields)
  .superRefine(({ aggregation, valueProperty }, ctx) => {
    if (aggregation === "COUNT" && valueProperty !== undefined) {
      ctx.addIssue({ code: "custom", path: ["valueProperty"], message: "COUNT counts events: it reads no value" });
    }
    if (aggregation !== "COUNT" && valueProperty === undefined) {
      ctx.addIssue({ code: "custom", path: ["valueProperty"], message: `required for ${aggregation}` });
    }
  })
  .meta({ id: "MeterCreate" });
export type MeterCreate = z.infer<typeof meterCreate>;

/** Only the display name changes: how usage is counted never changes under an existing invoice. */
export const meterUpdate = z.strictObject({ displayName: text(200) }).meta({ id: "MeterUpdate" });
export type MeterUpdate = z.infer<typeof meterUpdate>;

export const meter = z
  .object({ id: z.string(), ...meterFields, createdAt: timestamp, updatedAt: timestamp })
  .meta({ id: "Meter" });
export type Meter = z.infer<typeof meter>;

export const meterIdParam = resourceRef.meta({ description: "The meter's id or key." });
export const meterListQuery = z.object(pageQuery);
export const meterList = z.object({ meters: z.array(meter), ...pageInfo });
export type MeterList = z.infer<typeof meterList>;
