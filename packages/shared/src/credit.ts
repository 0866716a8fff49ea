import { z } from "zod";
import { idCursor, pageQuery, resourceRef, timestamp } from "./common.js";
import { money } from "./money.js";

/**
 * Sign rule of the ledger: a `Grant` adds credits (amount > 0); a `Usage` entry spends them to pay an invoice
 * (amount < 0). Callers write grants only; usage entries are written by the billing engine, never below a zero balance.
 */
export const creditEntryType = z.enum(["Grant", "Usage"]);
export type CreditEntryType = z.infer<typeof creditEntryType>;

export const integrationEntity = z
  .object({
    updatedAt: timestamp,
    integrationProvider: z.string().meta({ description: "Name of the CRM provider." }),
    integrationExternalId: z.string(),
    syncStatus: z.enum(["None"]),
    metadata: z.record(z.string(), z.unknown()),
    rawSyncedData: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "IntegrationEntity" });
export type IntegrationEntity = z.infer<typeof integrationEntity>;

/** References an entry may carry; stored as given (a contract or invoice id is not checked to exist). */
const entryReferences = {
  contractId: resourceRef.optional().meta({ description: "Stored as given." }),
  invoiceId: resourceRef.optional().meta({ description: "Stored as given; usage entries name the invoice they paid." }),
  erpId: resourceRef.optional(),
};

export const creditGrant = z
  .strictObject({
    customerId: resourceRef.meta({ description: "Id of a customer of the caller's account." }),
    amount: money.gt(0).meta({ description: "USD granted, > 0, at most 6 decimal places." }),
    type: z.literal("Grant").meta({ description: "Only `Grant`: `Usage` entries are written by the service when credits pay an invoice." }),
    ...entryReferences,
  })
  .meta({ id: "CreditGrant" });
export type CreditGrant = z.infer<typeof creditGrant>;

export const creditLedgerEntry = z
  .object({
    id: z.string(),
    customerId: z.string().meta({ description: "The customer whose ledger holds the entry." }),
    createdAt: timestamp,
    type: creditEntryType,
    amount: z.number().meta({ description: "USD; positive for `Grant`, negative for `Usage`." }),
    balanceAfterEntry: z.number().min(0).meta({ description: "The customer's credit balance in USD once this entry (and every earlier one) applied." }),
    integrationEntities: z.array(integrationEntity),
    ...entryReferences,
  })
  .meta({ id: "CreditLedgerEntry" });
export type CreditLedgerEntry = z.infer<typeof creditLedgerEntry>;

export const creditListQuery = z.object({
  customerId: resourceRef.meta({ description: "Id of a customer of the caller's account." }),
  limit: pageQuery.limit,
  cursor: idCursor.meta({ description: "The id of the last entry of the previous page (omit for the first page)." }),
});
export type CreditListQuery = z.infer<typeof creditListQuery>;

/** Entries in ledger order (oldest first); a page shorter than `limit` is the last one. */
export const creditList = z.object({ entries: z.array(creditLedgerEntry) });
export type CreditList = z.infer<typeof creditList>;
