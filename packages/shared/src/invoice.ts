import { z } from "zod";
import { pageInfo, pageQuery, requiredText, resourceRef, serviceId, text, timestamp } from "./common.js";
import { currencyCode } from "./currency.js";
import { money, signedMoney } from "./money.js";
import { lineTax, taxSummaryEntry } from "./tax-rate.js";

/**
 * Every amount of an invoice is in its currency (see money.ts); discount and creditsUsed are reductions, so also ≥ 0.
 * For every line and invoice, total = subtotal + overage − discount + tax − creditsUsed: `tax` is what exclusive
 * rates add; what inclusive rates split out of the prices is `taxInclusive`, already in subtotal and overage.
 */
const breakdownFields = {
  total: money.meta({ description: "subtotal + overage − discount + tax − creditsUsed." }),
  subtotal: money,
  overage: money,
  discount: money,
  creditsUsed: money,
  tax: money.meta({ description: "Tax added to the prices (exclusive rates)." }),
  taxInclusive: money.meta({
    description: "Tax included in the prices (inclusive rates): already in subtotal and overage, never added.",
  }),
};

export const revenueBreakdown = z.strictObject(breakdownFields).meta({ id: "RevenueBreakdown" });
export type RevenueBreakdown = z.infer<typeof revenueBreakdown>;

export const billingCycle = z.strictObject({ startTime: timestamp, endTime: timestamp }).meta({ id: "BillingCycle" });

/**
 * A line's breakdown: as an invoice's, except that a MAXIMUM adjustment line, a SEATS refund ("−10 seats from
 * Apr 21") and a THRESHOLD_BILLED line, the only kinds of line that may be negative, have a negative subtotal, tax
 * and total.
 */
export const lineRevenueBreakdown = z
  .strictObject({
    ...breakdownFields,
    total: signedMoney.meta({ description: "subtotal + overage − discount + tax − creditsUsed." }),
    subtotal: signedMoney,
    tax: signedMoney.meta({ description: "Tax added to the prices (exclusive rates)." }),
    taxInclusive: signedMoney.meta({ description: "Tax included in the prices (inclusive rates)." }),
  })
  .meta({ id: "LineRevenueBreakdown" });

/**
 * What a line item bills: a one-time or flat price, a commitment, metered usage, a product group as one line, seats
 * (PER_SEAT, and the adjustment of a prepaid cycle's seats, negative for seats removed), or an adjustment: MINIMUM
 * (a true-up to a product's or the contract's minimum) and MAXIMUM (a product's charge beyond its maximum taken off:
 * a negative amount). THRESHOLD_BILLED: what a threshold invoice of the same cycle already billed of a product,
 * taken off (negative; contract `billingThresholds`).
 */
export const lineItemKind = z.enum([
  "ONE_TIME",
  "FLAT",
  "COMMITMENT",
  "USAGE",
  "PRODUCT_GROUP",
  "SEATS",
  "MINIMUM",
  "MAXIMUM",
  "LATE_USAGE",
  "THRESHOLD_BILLED",
]);

/** What one tier of a GRADUATED or VOLUME price charged: `amount` exact to the micro-unit; the line is rounded once. */
export const tierCharge = z
  .strictObject({
    upTo: z.number().min(0).nullable(),
    quantity: z.number().min(0).meta({ description: "Units charged in this tier." }),
    unitPrice: money,
    flatPrice: money,
    amount: money.meta({ description: "quantity × unitPrice + flatPrice, to the micro-unit." }),
  })
  .meta({ id: "TierCharge" });

/** The spec names only invoiceId and revenueBreakdown ("not shown" beyond); the billing engine needs the others. */
const lineItemFields = {
  // Room for a 200-character displayName plus the engine's suffix (" commitment", " overage").
  name: requiredText(300).meta({ description: "What the line bills for, e.g. the product's displayName." }),
  catalogProductId: text(200).optional(),
  kind: lineItemKind,
  quantity: z.number().min(0).optional().meta({ description: "Units billed, e.g. metered usage." }),
  unitPrice: money.optional(),
  tiers: z
    .array(tierCharge)
    .max(20)
    .optional()
    .meta({ description: "GRADUATED: each tier reached; VOLUME: the tier the usage fell in." }),
  packages: z
    .strictObject({ count: z.number().int().min(0), size: z.number().min(0), price: money })
    .optional()
    .meta({ description: "PACKAGE: ⌈quantity / size⌉ packages at `price` each." }),
  version: z.number().int().min(1).optional().meta({
    description: "The version of the contract's terms that priced the line (see the contract's `version`).",
  }),
  adjusts: z
    .strictObject({
      invoiceId: z.string(),
      number: text(100).nullable().meta({ description: "The original invoice's number." }),
      product: text(300).meta({ description: "The product adjusted: its catalogProductId, else its line's name." }),
      quantity: z.number().meta({ description: "Units the original cycle counts now beyond (below) what it billed." }),
    })
    .optional()
    .meta({
      description:
        "LATE_USAGE: the original invoice whose cycle this line adjusts (usage stored after it was finalized, " +
        "the whole cycle priced again on its own terms minus what it and its adjustments charged). " +
        "THRESHOLD_BILLED: the threshold invoice whose charge of `product` this line takes off (`quantity` 0).",
    }),
  revenueBreakdown: lineRevenueBreakdown,
  taxes: z
    .array(lineTax)
    .max(10)
    .meta({
      description:
        "The line's tax per rate (none: untaxed): `revenueBreakdown.tax` sums the exclusive ones, " +
        "`revenueBreakdown.taxInclusive` the inclusive ones.",
    }),
};

export const lineItem = z
  .strictObject({
    invoiceId: z.string().meta({ description: "Id of the invoice holding this line." }),
    ...lineItemFields,
  })
  .meta({ id: "LineItem" });
export type LineItem = z.infer<typeof lineItem>;

export const paymentInfo = z
  .strictObject({
    transactionId: text(200).optional(),
    date: timestamp.optional(),
    paymentMethod: text(100).optional(),
    amount: money.optional(),
    currency: currencyCode.meta({ description: "The invoice's currency: its contract's." }),
    status: text(100)
      .optional()
      .meta({ description: "Free text from the payment provider; the spec names no closed set." }),
    note: text().optional(),
    customerId: text(200).optional().meta({ description: "The customer's id at the payment provider." }),
  })
  .meta({ id: "PaymentInfo" });
export type PaymentInfo = z.infer<typeof paymentInfo>;

/**
 * An invoice's life: a run makes it a DRAFT (re-priced by every run while it is one) and finalizes it with a number;
 * a DRAFT or an unpaid FINALIZED invoice can be VOIDED. Nothing else changes it.
 */
export const invoiceStatus = z
  .enum(["DRAFT", "FINALIZED", "VOIDED"])
  .meta({ id: "InvoiceStatus", description: "DRAFT → FINALIZED → VOIDED, or DRAFT → VOIDED." });
export type InvoiceStatus = z.infer<typeof invoiceStatus>;

/** The payment state of an invoice: what its recorded payments cover. */
export const billingStatus = z.enum(["None", "PartiallyPaid", "Paid", "Uncollectible"]).meta({
  id: "BillingStatus",
  description:
    "None: nothing paid; PartiallyPaid: paid, amountDue > 0 left; Paid: paid, nothing due; Uncollectible: dunning " +
    "gave up on the amountDue > 0 left (a payment or credit note leaving nothing due still closes it).",
});
export type BillingStatus = z.infer<typeof billingStatus>;

/** The open (or lost) dispute of a charge of the invoice, as the provider last reported it. */
export const invoiceDispute = z
  .object({
    id: z.string().meta({ description: "The provider's dispute id." }),
    status: z.string().meta({ description: "The provider's status: needs_response, under_review, lost…" }),
    reason: z.string().optional(),
    paymentId: z.string().meta({ description: "The disputed payment (its `transactionId`)." }),
    updatedAt: timestamp,
  })
  .meta({ id: "InvoiceDispute" });
export type InvoiceDispute = z.infer<typeof invoiceDispute>;

/** Lines per invoice: one per product, product group and metered product of a contract, with room to spare. */
const MAX_LINE_ITEMS = 1000;

/**
 * The fields the billing engine writes; the repository adds id, accountId, createdAt, updatedAt and
 * lineItems[].invoiceId.
 */
const draftFields = {
  customerId: serviceId,
  contractId: serviceId,
  currency: currencyCode.meta({ description: "ISO 4217 code of every amount of the invoice: its contract's." }),
  // Room for a 200-character contract name plus the cycle's dates.
  name: requiredText(300),
  billingCycle,
  revenueBreakdown,
  billingStatus: z.enum(["None"]),
  dueDate: timestamp,
  amount: money.meta({ description: "The invoice's total: equal to revenueBreakdown.total." }),
  lineItems: z.array(z.strictObject(lineItemFields)).max(MAX_LINE_ITEMS),
  paymentInfo: paymentInfo.optional(),
  taxExempt: z.boolean().meta({ description: "The customer was tax-exempt when the invoice was priced: no tax." }),
  kind: z
    .enum(["ADJUSTMENT"])
    .optional()
    .meta({
      description:
        "ADJUSTMENT: a late-usage adjustment invoice (the account's lateUsage policy ADJUSTMENT_INVOICE) of the " +
        "invoice `adjusts`, its billingCycle the original's; absent: an invoice of the contract's own cycle.",
    }),
  adjusts: serviceId.optional().meta({ description: "An ADJUSTMENT invoice's original invoice (its id)." }),
  taxSummary: z
    .array(taxSummaryEntry)
    .max(MAX_LINE_ITEMS)
    .meta({ description: "The lines' taxes summed per rate (code, rate and inclusive alike)." }),
};

export const invoiceDraft = z.strictObject(draftFields).superRefine((draft, ctx) => {
  if (Date.parse(draft.billingCycle.endTime) <= Date.parse(draft.billingCycle.startTime)) {
    ctx.addIssue({ code: "custom", path: ["billingCycle", "endTime"], message: "must be after startTime" });
  }
  if (draft.amount !== draft.revenueBreakdown.total) {
    ctx.addIssue({ code: "custom", path: ["amount"], message: "must equal revenueBreakdown.total" });
  }
});
export type InvoiceDraft = z.infer<typeof invoiceDraft>;

/** An invoice as the engine would write it, stored nowhere (POST /invoices/preview). */
export const invoicePreview = z
  .object({ ...draftFields, lineItems: z.array(z.object(lineItemFields)) })
  .meta({ id: "InvoicePreview" });
export type InvoicePreview = z.infer<typeof invoicePreview>;

export const invoice = z
  .object({
    id: z.string(),
    ...draftFields,
    customerId: z.string(),
    contractId: z.string(),
    accountId: z.string(),
    lineItems: z.array(lineItem),
    status: invoiceStatus,
    number: z.string().nullable().meta({
      description:
        "The account's invoicePrefix, a dash and 6 digits (INV-000042), given at finalization; null for a draft.",
    }),
    billingStatus,
    amountPaid: money.meta({ description: "Sum of the payments recorded." }),
    amountCredited: money.meta({ description: "Sum of the credit notes that reduce what is owed (OFFSET)." }),
    amountDue: money.meta({ description: "total − amountPaid − amountCredited; 0 for a voided invoice." }),
    overdue: z.boolean().meta({ description: "FINALIZED, amountDue > 0 and now after dueDate (computed at read)." }),
    finalizedAt: timestamp.nullable().meta({
      description:
        "The issue date: the `at` of the billing run that finalized it, or when POST .../finalize did; " +
        "null for a draft.",
    }),
    voidedAt: timestamp.nullable(),
    voidReason: z.string().optional().meta({ description: "Why it was voided, as the void's `reason` said." }),
    dispute: invoiceDispute.optional().meta({
      description: "A charge of the invoice is disputed at the payment provider (absent once won or closed).",
    }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: "Invoice" });
export type Invoice = z.infer<typeof invoice>;

export const invoiceIdParam = resourceRef.meta({ description: "The invoice's id." });

/** `true`/`false` in a query string (a plain boolean from tRPC callers); anything else is refused. */
const queryBoolean = z.preprocess(
  (value) => (value === "true" ? true : value === "false" ? false : value),
  z.boolean(),
);

export const invoiceListQuery = z.object({
  ...pageQuery,
  customerId: resourceRef.optional().meta({ description: "Only this customer's invoices (its id or externalId)." }),
  contractId: resourceRef.optional().meta({ description: "Only this contract's invoices." }),
  status: invoiceStatus.optional().meta({ description: "Only invoices in this status." }),
  billingStatus: billingStatus.optional().meta({ description: "Only invoices in this payment state." }),
  overdue: queryBoolean.optional().meta({
    description: "`true`: only overdue invoices (FINALIZED, amountDue > 0, now after dueDate); `false`: the others.",
  }),
  issuedFrom: timestamp.optional().meta({
    description: "Only invoices issued (`finalizedAt`) at or after this moment: drafts, never issued, are left out.",
  }),
  issuedTo: timestamp.optional().meta({ description: "Only invoices issued before this moment (exclusive)." }),
  dunning: z
    .enum(["active"])
    .optional()
    .meta({ description: "`active`: only invoices being chased by collection (charges failed, steps left)." }),
});
export const invoiceList = z.object({ invoices: z.array(invoice), ...pageInfo });
export type InvoiceList = z.infer<typeof invoiceList>;

/**
 * What adjusted an issued invoice later (late usage, issue 45): a LATE_USAGE line of a later FINALIZED invoice, or a
 * USAGE_CORRECTION credit note on the invoice itself. `GET /invoices/{invoiceId}/adjustments`, webhook
 * `invoice.adjusted`.
 */
export const invoiceAdjustment = z
  .object({
    id: z.string().meta({
      description: "`{adjustedBy}/{product}` for a line, the credit note's id for a correction: one per adjustment.",
    }),
    invoiceId: serviceId.meta({ description: "The invoice adjusted (the original)." }),
    kind: z.enum(["LATE_USAGE", "USAGE_CORRECTION"]).meta({
      description: "LATE_USAGE: billed on a later invoice. USAGE_CORRECTION: credited by a credit note on this one.",
    }),
    adjustedBy: serviceId.meta({ description: "The later invoice carrying the line, or the credit note." }),
    number: z.string().nullable().meta({ description: "The later invoice's number, or the credit note's." }),
    product: z.string().meta({ description: "The product adjusted: its catalogProductId, else its line's name." }),
    quantity: z.number().meta({ description: "Units the cycle counts now beyond (below: negative) what was billed." }),
    amount: signedMoney.meta({
      description:
        "Billed (> 0) by the later invoice's line, before its tax; or credited (< 0) by the credit note, its tax " +
        "share included (a correction split into an OFFSET and a CREDITS note is two adjustments).",
    }),
    currency: currencyCode,
    createdAt: timestamp,
  })
  .meta({ id: "InvoiceAdjustment" });
export type InvoiceAdjustment = z.infer<typeof invoiceAdjustment>;

export const invoiceAdjustmentList = z.object({
  adjustments: z.array(invoiceAdjustment).meta({
    description:
      "Oldest first: the LATE_USAGE lines of the contract's later finalized invoices (at most 100 invoices read), " +
      "then the USAGE_CORRECTION credit notes (at most 100, an invoice's limit).",
  }),
});
