import { z } from "zod";
import { entitlement } from "./alert.js";
import { resourceRef, timestamp } from "./common.js";
import { currencyBalance } from "./credit.js";
import { invoiceStatus } from "./invoice.js";

/** The kinds of state `GET /customers/{customerId}/stream` sends, each event the whole new state of its kind. */
export const customerStreamKind = z
  .enum(["usage", "balances", "reservations", "invoices"])
  .meta({ id: "CustomerStreamKind" });
export type CustomerStreamKind = z.infer<typeof customerStreamKind>;

/** An invoice of the customer as the stream shows it: what changes as it moves. */
export const streamedInvoice = z.object({
  id: z.string(),
  number: z.string().nullable(),
  status: invoiceStatus,
  amount: z.number().meta({ description: "The invoice's total." }),
  billingStatus: z.string(),
  amountDue: z.number(),
});

/** An open reservation of the customer as the stream shows it: what it holds until when. */
export const streamedReservation = z.object({
  id: z.string(),
  meterKey: z.string().optional().meta({ description: "A usage reservation: its meter." }),
  currency: z.string().optional().meta({ description: "A money reservation: the currency of its amount." }),
  amount: z.number().meta({ description: "The units (or, with `currency`, the money) it holds." }),
  expiresAt: timestamp.meta({ description: "When it expires unsettled." }),
});

/**
 * A customer's live state: what each event of the stream carries (a `reset` all of it, the others one kind), the
 * same answers as `GET /customers/{customerId}/entitlements`, `GET /credits/balance`, the customer's open reservations
 * (as `GET /reservations/{id}` shows each) and `GET /invoices?customerId=`.
 */
export const customerStreamState = z
  .object({
    usage: z.array(entitlement).meta({
      description: "Per meter the customer's contracts in force name: its usage of the current cycle and its limit.",
    }),
    balances: z
      .array(currencyBalance)
      .meta({ description: "The credit balance per currency (as GET /credits/balance)." }),
    reservations: z.array(streamedReservation).meta({
      description: "The customer's open reservations (the first 100 to expire): neither settled nor expired.",
    }),
    invoices: z.array(streamedInvoice).meta({ description: "The customer's invoices (the first 100), oldest first." }),
  })
  .meta({ id: "CustomerStreamState" });
export type CustomerStreamState = z.infer<typeof customerStreamState>;

export const customerStreamParams = z.object({
  customerId: resourceRef.meta({ description: "Id or externalId of a customer of the caller's account." }),
});
