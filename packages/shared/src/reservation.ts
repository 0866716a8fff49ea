import { z } from "zod";
import { requiredText, resourceRef, timestamp } from "./common.js";
import { meterKey } from "./meter.js";
import { money } from "./money.js";

/** The longest a reservation may stay open before it expires. */
export const MAX_RESERVATION_TTL_SECONDS = 86_400;

const units = money.meta({ description: "Units of the meter, at most 6 decimal places." });

export const reservationCreate = z
  .strictObject({
    meterKey,
    amount: money.gt(0).meta({
      description:
        "Units of the meter to hold, at most 6 decimal places; whole units for a COUNT meter (400 otherwise).",
    }),
    ttlSeconds: z
      .number()
      .int()
      .min(1)
      .max(MAX_RESERVATION_TTL_SECONDS)
      .meta({ description: "Seconds until an unsettled reservation expires and holds nothing." }),
    ref: requiredText(200).meta({
      description:
        "Unique within the account: the ref of the usage event its settlement records (a COUNT meter's " +
        "further events add `:2`, `:3`…).",
    }),
  })
  .meta({ id: "ReservationCreate" });
export type ReservationCreate = z.infer<typeof reservationCreate>;

export const reservationSettle = z
  .strictObject({
    amount: units.meta({
      description:
        "The units actually used: 0 up to the amount reserved; whole units for a COUNT meter (400 otherwise).",
    }),
  })
  .meta({ id: "ReservationSettle" });
export type ReservationSettle = z.infer<typeof reservationSettle>;

export const reservationStatus = z.enum(["OPEN", "SETTLED", "EXPIRED"]).meta({ id: "ReservationStatus" });
export type ReservationStatus = z.infer<typeof reservationStatus>;

export const reservation = z
  .object({
    id: z.string(),
    customerId: z.string(),
    meterKey: z.string(),
    amount: z.number().meta({ description: "The units held while OPEN." }),
    ref: z.string(),
    status: reservationStatus,
    settledAmount: z.number().optional().meta({ description: "SETTLED: the units recorded as usage." }),
    periodStart: timestamp.meta({ description: "The cycle whose limit it counts against." }),
    periodEnd: timestamp,
    expiresAt: timestamp,
    createdAt: timestamp,
    settledAt: timestamp.optional(),
  })
  .meta({ id: "Reservation" });
export type Reservation = z.infer<typeof reservation>;

export const reservationCustomerParams = z.object({
  customerId: resourceRef.meta({ description: "Id or externalId of a customer of the caller's account." }),
});
export const reservationIdParam = z.object({ id: resourceRef.meta({ description: "The reservation's id." }) });
