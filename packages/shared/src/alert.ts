import { z } from "zod";
import { pageInfo, pageQuery, resourceRef, timestamp } from "./common.js";
import { meterKey } from "./meter.js";
import { money } from "./money.js";

/** A usage quantity: exact in micro-units, like money (the meter's unit, not USD). */
const usageAmount = money.meta({ description: "A quantity of the meter's unit, at most 6 decimal places." });

export const alertPeriod = z.enum(["CYCLE", "DAY"]).meta({
  id: "AlertPeriod",
  description:
    "CYCLE: the customer's current billing cycle of the Active contract pricing the meter (the UTC calendar month " +
    "when none does). DAY: the UTC day.",
});
export type AlertPeriod = z.infer<typeof alertPeriod>;

export const MAX_ALERT_THRESHOLDS = 10;

export const alertCreate = z
  .strictObject({
    customerId: resourceRef
      .optional()
      .meta({ description: "Id or externalId of one customer; absent: every customer of the account." }),
    meterKey,
    thresholds: z
      .array(usageAmount.gt(0))
      .min(1)
      .max(MAX_ALERT_THRESHOLDS)
      .superRefine((list, ctx) => {
        list.forEach((value, index) => {
          const previous = list[index - 1];
          if (index > 0 && previous !== undefined && value <= previous)
            ctx.addIssue({ code: "custom", path: [index], message: "must be greater than the previous threshold" });
        });
      })
      .meta({ description: "1 to 10 usage values, strictly increasing: each fires once per period when reached." }),
    period: alertPeriod,
  })
  .meta({ id: "AlertCreate" });
export type AlertCreate = z.infer<typeof alertCreate>;

export const alert = z
  .object({
    id: z.string(),
    customerId: z.string().nullable().meta({ description: "The customer's service id; null: every customer." }),
    meterKey: z.string(),
    thresholds: z.array(z.number()),
    period: alertPeriod,
    createdAt: timestamp,
  })
  .meta({ id: "Alert" });
export type Alert = z.infer<typeof alert>;

export const alertIdParam = z.object({ alertId: resourceRef.meta({ description: "The alert's id." }) });
export const alertListQuery = z.object(pageQuery);
export const alertList = z.object({ alerts: z.array(alert), ...pageInfo });
export type AlertList = z.infer<typeof alertList>;

/** The data of `usage.threshold_crossed`: a customer's usage of a meter reached a threshold in a period. */
export const usageThresholdCrossed = z
  .object({
    alertId: z.string(),
    customerId: z.string(),
    meterKey: z.string(),
    threshold: z.number(),
    value: z.number().meta({ description: "The usage of the period when the crossing was seen (≥ threshold)." }),
    periodStart: timestamp,
    periodEnd: timestamp,
    crossedAt: timestamp.meta({ description: "When the service saw the crossing: the webhook's `timestamp`." }),
  })
  .meta({ id: "UsageThresholdCrossed" });
export type UsageThresholdCrossed = z.infer<typeof usageThresholdCrossed>;

export const entitlement = z
  .object({
    meterKey: z.string(),
    hasAccess: z.boolean().meta({ description: "false only under limitStrategy BLOCK once usage ≥ limit." }),
    usage: z.number().min(0).meta({ description: "Usage of the period, as billing counts it against the limit." }),
    limit: z.number().nullable().meta({ description: "The commitment's units; null: unlimited." }),
    remaining: z.number().nullable().meta({ description: "max(limit − usage, 0); null: unlimited." }),
    periodStart: timestamp,
    periodEnd: timestamp,
  })
  .meta({ id: "Entitlement" });
export type Entitlement = z.infer<typeof entitlement>;

export const entitlementParams = z.object({
  customerId: resourceRef.meta({ description: "Id or externalId of a customer of the caller's account." }),
});
export const entitlementMeterParams = entitlementParams.extend({ meterKey });
export const entitlementList = z.object({ entitlements: z.array(entitlement) }).meta({ id: "EntitlementList" });
export type EntitlementList = z.infer<typeof entitlementList>;
