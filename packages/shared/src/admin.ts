import { z } from "zod";
import { dunningPolicy } from "./collection.js";
import { requiredText, text, timestamp } from "./common.js";
import { currencyCode } from "./currency.js";
import { address, DEFAULT_NET_TERMS_DAYS, emailAddress, netTermsDays } from "./customer.js";
import { taxRateCodes } from "./tax-rate.js";
import { testClock, testClockCreate } from "./test-clock.js";

export const DEFAULT_INVOICE_PREFIX = "INV";

/** What happens to usage stored after the invoice of its day was finalized (issue 45; docs/decisions.md). */
export const lateUsagePolicy = z
  .strictObject({
    policy: z.enum(["NEXT_INVOICE", "ADJUSTMENT_INVOICE", "IGNORE"]).meta({
      description:
        "NEXT_INVOICE: the contract's next invoice carries one LATE_USAGE line per original invoice and product; " +
        "ADJUSTMENT_INVOICE: the contract's next run makes a separate invoice (`kind: ADJUSTMENT`, `adjusts`: the " +
        "original) of those lines per original, finalized at once; IGNORE: late usage is billed nowhere.",
    }),
    windowDays: z.number().int().min(0).max(365).meta({
      description: "Invoices finalized up to this many days before a run are priced again; older ones never.",
    }),
  })
  .meta({ id: "LateUsagePolicy" });
export type LateUsagePolicy = z.infer<typeof lateUsagePolicy>;
export const DEFAULT_LATE_USAGE: LateUsagePolicy = { policy: "NEXT_INVOICE", windowDays: 35 };

/** What an account's documents (invoices, credit notes) say of their seller, and how its invoices are numbered. */
const accountSettingFields = {
  invoicePrefix: z
    .string()
    .regex(/^[A-Z0-9]{1,10}$/, "1 to 10 of A-Z and 0-9")
    .meta({ description: "Starts invoice numbers (`INV-000042`); a change applies to later numbers only." }),
  legalName: text(200).meta({ description: "The seller's name on documents; the account's name when unset." }),
  address,
  taxId: text(100),
  email: emailAddress,
  defaultTaxRateCodes: taxRateCodes.meta({
    description: "The rates of invoices whose product, contract and customer name none.",
  }),
  defaultCurrency: currencyCode.meta({
    description: "The currency of new contracts and credit grants that name none; a change applies to later ones only.",
  }),
  netTermsDays: netTermsDays.meta({
    description:
      "Days from an invoice's issue to its due date for customers that set none (0..365); applies to invoices " +
      "finalized after the change.",
  }),
};

export const account = z
  .object({
    id: z.string(),
    name: z.string(),
    createdAt: timestamp,
    invoicePrefix: accountSettingFields.invoicePrefix.meta({ description: "Default `INV`." }),
    legalName: accountSettingFields.legalName.optional(),
    address: address.optional(),
    taxId: accountSettingFields.taxId.optional(),
    email: accountSettingFields.email.optional(),
    defaultTaxRateCodes: accountSettingFields.defaultTaxRateCodes.optional(),
    defaultCurrency: accountSettingFields.defaultCurrency.meta({ description: "Default `USD`." }),
    netTermsDays: accountSettingFields.netTermsDays.meta({ description: `Default ${DEFAULT_NET_TERMS_DAYS}.` }),
    autoCollect: z.boolean().meta({
      description: "Default true: finalized invoices are charged through the account's payment provider.",
    }),
    dunning: dunningPolicy
      .optional()
      .meta({ description: "Retries and reminders of unpaid invoices; none when unset." }),
    lateUsage: lateUsagePolicy.meta({ description: "Default NEXT_INVOICE within 35 days." }),
    testClock: testClock.optional().meta({
      description: "Present on a test account only (its billing time); absent: a live account, on real time.",
    }),
  })
  .meta({ id: "Account" });
export type Account = z.infer<typeof account>;

/** The body of `PATCH /admin/accounts/{accountId}`: fields absent are kept, `null` clears an optional one. */
export const accountUpdate = {
  invoicePrefix: accountSettingFields.invoicePrefix.optional(),
  legalName: accountSettingFields.legalName.nullable().optional(),
  address: address.nullable().optional(),
  taxId: accountSettingFields.taxId.nullable().optional(),
  email: accountSettingFields.email.nullable().optional(),
  defaultTaxRateCodes: accountSettingFields.defaultTaxRateCodes.nullable().optional(),
  defaultCurrency: accountSettingFields.defaultCurrency.optional(),
  netTermsDays: accountSettingFields.netTermsDays.nullable().optional(),
  autoCollect: z.boolean().optional().meta({
    description:
      "Whether finalized invoices with amountDue > 0 are charged through the payment provider (default true).",
  }),
  dunning: dunningPolicy.nullable().optional().meta({ description: "The dunning policy; `null` removes it." }),
  lateUsage: lateUsagePolicy
    .nullable()
    .optional()
    .meta({ description: "Usage stored after its invoice; `null`: the default (NEXT_INVOICE, 35 days)." }),
  testClock: testClockCreate.optional().meta({
    description:
      "Makes a live account with no invoice yet a test account (409 otherwise); a test account stays one, its clock " +
      "moved by POST /test-clock/advance.",
  }),
};
export type AccountUpdate = { [Field in keyof typeof accountUpdate]?: z.infer<(typeof accountUpdate)[Field]> };

export const accountCreate = z.strictObject({ name: requiredText(), testClock: testClockCreate.optional() });

/**
 * `read` may call queries only; `write` may call everything (write implies read); `finance` reads and does a finance
 * team's work (payments, voids, finalizations, credit notes, grants, billing runs) but changes no configuration.
 */
export const tokenScope = z.enum(["read", "write", "finance"]).meta({
  id: "TokenScope",
  description:
    "`read`: reads only. `write`: everything. `finance`: reads, payments, voids, finalizations, credit notes, credit " +
    "grants and billing runs; no configuration (customers, contracts, meters, tax rates, alerts, webhook endpoints).",
});
export type TokenScope = z.infer<typeof tokenScope>;

/** The body of `POST /admin/accounts/{accountId}/tokens`; optional as a whole. */
export const tokenCreate = { scope: tokenScope.default("write").meta({ description: "Default `write`." }) };

/** At most a day: a rotation's grace period lets deployed callers switch over, not keep two secrets forever. */
export const MAX_ROTATION_GRACE_SECONDS = 86_400;
export const tokenRotate = {
  graceSeconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_ROTATION_GRACE_SECONDS)
    .default(0)
    .meta({ description: "How long the old token keeps working; default 0: revoked at once." }),
};

/** A token's secret appears in exactly one response, the one that creates it. */
export const newToken = z.object({
  tokenId: z.string(),
  token: z.string().meta({ description: "Bearer token; shown only once, stored only as a hash." }),
});
export type NewToken = z.infer<typeof newToken>;

/** The account and its first token: `tokenId` is what rotates or revokes it (since 1.3.0). */
export const accountCreated = z.object({ account, ...newToken.shape });

/** A token as listed: never its secret. */
export const tokenInfo = z
  .object({
    id: z.string(),
    scope: tokenScope,
    createdAt: timestamp,
    lastUsedAt: timestamp.nullable().meta({ description: "Accurate to a minute; null until first used." }),
    revokedAt: timestamp.nullable().meta({
      description: "When it stopped working (in the future during a rotation's grace period); null while live.",
    }),
  })
  .meta({ id: "TokenInfo" });
export type TokenInfo = z.infer<typeof tokenInfo>;

export const tokenList = z.object({ tokens: z.array(tokenInfo) });

/** `GET /token` takes nothing: the token is the call's own. */
export const currentTokenQuery = z.object({});

/** The token making a call, as `GET /token` shows it to its holder: what it may do, never its secret. */
export const currentToken = z.object({
  token: z
    .object({
      id: z.string().meta({ description: "What the operator rotates or revokes it by." }),
      accountId: z.string(),
      scope: tokenScope,
    })
    .meta({ id: "CurrentToken" }),
});
export type CurrentToken = z.infer<typeof currentToken>;
export type TokenList = z.infer<typeof tokenList>;

export const revokedToken = z.object({ tokenId: z.string(), revokedAt: timestamp });
export type RevokedToken = z.infer<typeof revokedToken>;
export type AccountCreated = z.infer<typeof accountCreated>;
