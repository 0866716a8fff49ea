import { z } from "zod";
import { entitlement } from "./alert.js";
import { resourceRef } from "./common.js";
import { currencyBalance } from "./credit.js";
import { invoiceStatus } from "./invoice.js";

/** The kinds of state `GET /customers/{customerId}/stream` sends, each event the whole new state of its kind. */
export const customerStreamKind = z.enum(["usage", "balances", "invoices"]).meta({ id: "CustomerStreamKind" });
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

/**
 * A customer's live state: what each event of the stream carries (a `reset` all of it, the others one kind), the
 * same answers as `GET /customers/{customerId}/entitlements`, `GET /credits/balance` and `GET /invoices?customerId=`.
 */
export const customerStreamState = z
  .object({
    usage: z.array(entitlement).meta({
      description: "Per meter the customer's contracts in force name: its usage of the current cycle and its limit.",
    }),
    balances: z
      .array(currencyBalance)
      .meta({ description: "The credit balance per currency (as GET /credits/balance)." }),
    invoices: z.array(streamedInvoice).meta({ description: "The customer's invoices (the first 100), oldest first." }),
  })
  .meta({ id: "CustomerStreamState" });
export type CustomerStreamState = z.infer<typeof customerStreamState>;

export const customerStreamParams = z.object({
  customerId: resourceRef.meta({ description: "Id or externalId of a customer of the caller's account." }),
});
