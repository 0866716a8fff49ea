import { z } from "zod";
import { requiredText, resourceRef, timestamp } from "./common.js";
import { currencyCode } from "./currency.js";
import { meterKey } from "./meter.js";
import { money } from "./money.js";

/** The longest a reservation may stay open before it expires. */
export const MAX_RESERVATION_TTL_SECONDS = 86_400;

const units = money.meta({ description: "Units of the meter, at most 6 decimal places." });

export const reservationCreate = z
  .strictObject({
    meterKey: meterKey.optional().meta({
      description: "The meter whose units are held (a usage reservation). Exactly one of `meterKey` and `currency`.",
    }),
    currency: currencyCode.optional().meta({
      description:
        "A money reservation: `amount` is money in this currency, held against the customer's prepaid credit " +
        "balance in it. Exactly one of `meterKey` and `currency`.",
    }),
    amount: money.gt(0).meta({
      description:
        "Units of the meter to hold, at most 6 decimal places; whole units for a COUNT meter (400 otherwise). " +
        "With `currency`: money, in whole minor units of the currency.",
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
  .superRefine((input, context) => {
    if ((input.meterKey === undefined) === (input.currency === undefined))
      context.addIssue({
        code: "custom",
        path: [input.meterKey === undefined ? "meterKey" : "currency"],
        message: "exactly one of meterKey (units) and currency (money) is required",
      });
  })
  .meta({ id: "ReservationCreate" });
export type ReservationCreate = z.infer<typeof reservationCreate>;

export const reservationSettle = z
  .strictObject({
    amount: units.meta({
      description:
        "The units actually used: 0 up to the amount reserved; whole units for a COUNT meter (400 otherwise). " +
        "A money reservation: the money spent, debited once from the credit balance.",
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
    meterKey: z.string().optional().meta({ description: "A usage reservation: its meter." }),
    currency: z.string().optional().meta({ description: "A money reservation: the currency of its amounts." }),
    amount: z.number().meta({ description: "The units (or, with `currency`, the money) held while OPEN." }),
    ref: z.string(),
    status: reservationStatus,
    settledAmount: z.number().optional().meta({ description: "SETTLED: the units recorded as usage." }),
    periodStart: timestamp
      .optional()
      .meta({ description: "A usage reservation: the cycle whose limit it counts against (a balance has none)." }),
    periodEnd: timestamp.optional(),
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
