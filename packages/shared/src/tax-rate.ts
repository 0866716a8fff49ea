import { z } from "zod";
import { pageInfo, pageQuery, requiredText, resourceRef, timestamp } from "./common.js";
import { signedMoney } from "./money.js";

/** A tax rate's code: how products, contracts, customers and the account name it; unique in the account. */
export const taxRateCode = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,50}$/, "1 to 50 of A-Z, a-z, 0-9, _, . and -")
  .meta({ description: "Unique in the account, e.g. `VAT_DE_19`." });

/**
 * The rates a level of the terms names (product, product group, contract, customer, account). The most specific
 * level naming any applies; several rates on one level add up (state + city). Each must be a live rate of the
 * account (400 naming the field otherwise).
 */
export const taxRateCodes = z
  .array(taxRateCode)
  .max(10)
  .refine((codes) => new Set(codes).size === codes.length, "must not list a code twice")
  .meta({
    uniqueItems: true,
    description: "Codes of live tax rates of the account; several add up. Empty: this level names none.",
  });

/** The step of a rate: 4 decimals of a percent, i.e. one part per million of the amount. */
const RATE_STEP = 0.0001;
/** Decided on the number's decimal text (exponent forms such as 1e-7 have more decimals anyway). */
const hasAtMostFourDecimals = (rate: number) => /^\d+(\.\d{1,4})?$/.test(String(rate));

export const taxRatePercent = z
  .number()
  .min(0)
  .max(100)
  .multipleOf(RATE_STEP, { message: "at most 4 decimal places" })
  .refine(hasAtMostFourDecimals, { message: "at most 4 decimal places", when: ({ issues }) => issues.length === 0 })
  .meta({ description: "Percent, 0 to 100, at most 4 decimals (19.5 is 19.5 %)." });

export const taxRateCreate = z
  .strictObject({
    code: taxRateCode,
    name: requiredText(200).meta({ description: "What documents print, e.g. `VAT 19 %`." }),
    rate: taxRatePercent,
    inclusive: z
      .boolean()
      .default(false)
      .meta({ description: "true: prices include the tax, which is split out; false (default): tax is added." }),
  })
  .meta({ id: "TaxRateCreate" });
export type TaxRateCreate = z.infer<typeof taxRateCreate>;

/** Only the name changes: a rate that priced an invoice never changes (make a new one). */
export const taxRateUpdate = z.strictObject({ name: taxRateCreate.shape.name }).meta({ id: "TaxRateUpdate" });
export type TaxRateUpdate = z.infer<typeof taxRateUpdate>;

export const taxRate = z
  .object({
    id: z.string(),
    code: taxRateCode,
    name: z.string(),
    rate: taxRatePercent,
    inclusive: z.boolean(),
    archivedAt: timestamp
      .nullable()
      .meta({ description: "Set by DELETE: no invoice priced after it uses the rate, no terms may name it." }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: "TaxRate" });
export type TaxRate = z.infer<typeof taxRate>;

export const taxRateIdParam = resourceRef.meta({ description: "The tax rate's id or code." });
export const taxRateListQuery = z.object(pageQuery);
export const taxRateList = z.object({ taxRates: z.array(taxRate), ...pageInfo });
export type TaxRateList = z.infer<typeof taxRateList>;

/** One rate's tax on one invoice line, the rate copied as it priced the line (it never changes afterwards). */
export const lineTax = z
  .strictObject({
    code: taxRateCode,
    name: z.string(),
    rate: taxRatePercent,
    inclusive: z.boolean(),
    taxableAmount: signedMoney.meta({
      description: "What the rate applied to: the line's amount net of tax (negative on a MAXIMUM line).",
    }),
    amount: signedMoney.meta({ description: "The tax, rounded to the currency's minor unit (negative on MAXIMUM)." }),
  })
  .meta({ id: "LineTax" });
export type LineTax = z.infer<typeof lineTax>;

/** The invoice's taxes per rate: the sums of its lines' (same code and rate). */
export const taxSummaryEntry = lineTax.meta({ id: "TaxSummaryEntry" });
