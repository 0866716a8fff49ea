import { z } from "zod";
import { idCursor, pageQuery, resourceRef, timestamp } from "./common.js";
import { serviceDate } from "./contract.js";
import { creditRecurrence } from "./credit-recurrence.js";
import { currencyCode } from "./currency.js";
import { money } from "./money.js";

/**
 * Sign rule of the ledger: a `Grant` adds credits (amount > 0), and so does a `Reversal`, which gives back to one grant
 * what a voided invoice's `Usage` took from it; the other entries take from one grant (amount < 0): `Usage` pays an
 * invoice (one entry per grant burned), `Expiration` removes what is left of a grant at its expiry, `Void` what is
 * left of a grant voided by the caller. Callers write grants and voids; the service writes the rest. No entry takes
 * more than its grant holds, so the balance never goes below zero.
 */
export const creditEntryType = z.enum(["Grant", "Usage", "Expiration", "Void", "Reversal"]);
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
  invoiceId: resourceRef.optional().meta({
    description: "Stored as given; `Usage` entries name the invoice they paid, `Reversal` entries the voided one.",
  }),
  erpId: resourceRef.optional(),
};

/** Grant priorities: lower burns first. */
export const GRANT_PRIORITY = { min: 0, max: 100, default: 50 };

export const creditGrant = z
  .strictObject({
    customerId: resourceRef.meta({ description: "Id or externalId of a customer of the caller's account." }),
    amount: money.gt(0).meta({ description: "Granted in `currency`, > 0, at most 6 decimal places." }),
    currency: currencyCode.optional().meta({
      description: "ISO 4217: the grant pays only invoices of this currency. Default the account's `defaultCurrency`.",
    }),
    type: z.literal("Grant").meta({ description: "Only `Grant`: the other entry types are written by the service." }),
    effectiveAt: serviceDate.optional().meta({
      description: "Default: now. The grant pays only invoices issued at or after it (from 1970 through 2099).",
    }),
    expiresAt: serviceDate.optional().meta({
      description:
        "Absent: never expires. Must be after now and after `effectiveAt`. The grant pays only invoices issued " +
        "before it; what is left of it then is removed by an `Expiration` entry. Not with `recurrence`.",
    }),
    recurrence: creditRecurrence.optional().meta({
      description:
        "The grant recurs: `effectiveAt` starts its first period (at most one period ago), each period's grant " +
        "expires at the next period's start, and the answer is the first period's `Grant` entry.",
    }),
    priority: z
      .number()
      .int()
      .min(GRANT_PRIORITY.min)
      .max(GRANT_PRIORITY.max)
      .optional()
      .meta({
        description:
          `Integer ${GRANT_PRIORITY.min} to ${GRANT_PRIORITY.max}, default ${GRANT_PRIORITY.default}: ` +
          `lower burns first.`,
      }),
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
    amount: z.number().meta({ description: "In `currency`; positive for `Grant`, negative for the others." }),
    currency: currencyCode.meta({ description: "The currency of the grant the entry moves." }),
    balanceAfterEntry: z.number().min(0).meta({
      description: "The customer's credit balance in `currency` once this entry (and every earlier one) applied.",
    }),
    integrationEntities: z.array(integrationEntity),
    ...entryReferences,
    grantId: z
      .string()
      .optional()
      .meta({
        description:
          "The grant whose money the entry moves (a `Grant` entry names itself). Absent on entries written before " +
          "grants had terms.",
      }),
    effectiveAt: timestamp.optional().meta({
      description:
        "`Grant` entries: from when the grant pays invoices. `Expiration` entries: when the grant expired (its " +
        "`expiresAt`), however late the entry was written.",
    }),
    expiresAt: timestamp
      .optional()
      .meta({ description: "`Grant` entries: when what is left of the grant expires; absent: never." }),
    priority: z.number().int().optional().meta({ description: "`Grant` entries: lower burns first." }),
    creditNoteId: z
      .string()
      .optional()
      .meta({ description: "The `Grant` a credit note with `refund: CREDITS` made: that credit note's id." }),
    reservationId: z.string().optional().meta({
      description: "`Usage` entries of a money reservation's settlement (POST /reservations/{id}/settle): its id.",
    }),
    recurringGrantId: z.string().optional().meta({
      description:
        "`Grant` entries of a recurring grant: its id (a contract's grants: the contract's and their place in it).",
    }),
    period: z.number().int().min(1).optional().meta({ description: "`Grant` entries of a recurring grant: 1, 2, …" }),
    rollover: z
      .boolean()
      .optional()
      .meta({ description: "true on the `Grant` carrying what the period before left (up to `rollover.maxAmount`)." }),
  })
  .meta({ id: "CreditLedgerEntry" });
export type CreditLedgerEntry = z.infer<typeof creditLedgerEntry>;

export const creditEntryResponse = z.object({ entry: creditLedgerEntry });

/** Path of `POST /credits/{entryId}/void`; the body is empty. */
export const creditVoidParams = z.strictObject({
  entryId: resourceRef.meta({ description: "Id of a `Grant` entry of the caller's account." }),
});
export type CreditVoidParams = z.infer<typeof creditVoidParams>;

export const creditBalanceQuery = z.object({
  customerId: resourceRef.meta({ description: "Id or externalId of a customer of the caller's account." }),
});
export type CreditBalanceQuery = z.infer<typeof creditBalanceQuery>;

export const grantBalance = z
  .object({
    grantId: z.string().meta({ description: "Id of the grant's `Grant` entry." }),
    amount: z.number().meta({ description: "Granted, in `currency`." }),
    remaining: z.number().meta({ description: "Left of it, > 0." }),
    currency: currencyCode,
    effectiveAt: timestamp,
    expiresAt: timestamp.optional().meta({ description: "Absent: never expires." }),
    priority: z.number().int(),
  })
  .meta({ id: "GrantBalance" });
export type GrantBalance = z.infer<typeof grantBalance>;

export const currencyBalance = z
  .object({
    currency: currencyCode,
    balance: z.number().min(0).meta({ description: "What the grants of this currency hold." }),
  })
  .meta({ id: "CurrencyBalance" });

export const creditBalance = z
  .object({
    balance: z
      .number()
      .min(0)
      .meta({
        description:
          "In the account's `defaultCurrency` (`currency`): the balance after the last ledger entry, expirations due " +
          "by now written. The other currencies' are in `balances`.",
      }),
    currency: currencyCode.meta({ description: "The currency of `balance`: the account's `defaultCurrency`." }),
    balances: z.array(currencyBalance).meta({
      description: "One per currency the customer holds credits in, `currency`'s first (also when 0), then A to Z.",
    }),
    grants: z.array(grantBalance).meta({
      description: "The grants with money left, in burn order; those of a currency add up to its balance.",
    }),
  })
  .meta({ id: "CreditBalance" });
export type CreditBalance = z.infer<typeof creditBalance>;

export const creditListQuery = z.object({
  customerId: resourceRef.meta({ description: "Id or externalId of a customer of the caller's account." }),
  limit: pageQuery.limit,
  cursor: idCursor.meta({ description: "The id of the last entry of the previous page (omit for the first page)." }),
});
export type CreditListQuery = z.infer<typeof creditListQuery>;

/** Entries in ledger order (oldest first); a page shorter than `limit` is the last one. */
export const creditList = z.object({ entries: z.array(creditLedgerEntry) });
export type CreditList = z.infer<typeof creditList>;

/**
 * A recurring grant of `POST /credits` (`recurrence`), as `POST /credits/{entryId}/recurrence/cancel` answers it: what
 * each period grants, how far it has been issued and, once canceled, the last period it issues.
 */
export const recurringGrant = z
  .object({
    id: z.string().meta({ description: "The recurring grant's id: `recurringGrantId` on each of its entries." }),
    customerId: z.string(),
    amount: money.meta({ description: "Granted each period." }),
    currency: currencyCode,
    priority: z.number().int(),
    recurrence: creditRecurrence,
    effectiveAt: timestamp.meta({ description: "The first period's start: periods are counted from it." }),
    issuedThrough: z.number().int().min(0).meta({ description: "The last period issued so far (0: none)." }),
    lastPeriod: z.number().int().min(1).optional().meta({
      description: "The last period it issues: `recurrence.count`, or the one started when it was canceled.",
    }),
    canceledAt: timestamp.optional().meta({ description: "When it was canceled (the account's billing time)." }),
    createdAt: timestamp,
  })
  .meta({ id: "RecurringGrant" });
export type RecurringGrant = z.infer<typeof recurringGrant>;
export const recurringGrantResponse = z.object({ recurringGrant });

/** Path of `POST /credits/{entryId}/recurrence/cancel`; the body is empty. */
export const recurrenceCancelParams = z.strictObject({
  entryId: resourceRef.meta({
    description: "Id of a `Grant` entry of a recurring grant of `POST /credits` (any of its periods').",
  }),
});
