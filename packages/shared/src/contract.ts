import { z } from "zod";
import { DAY_MS, pageInfo, pageQuery, requiredText, resourceRef, text, timestamp, unicodeString } from "./common.js";
import { contractCreditGrants } from "./credit-recurrence.js";
import { currencyCode } from "./currency.js";
import { customField, customFieldValue } from "./custom-field.js";
import { MAX_AMOUNT, money } from "./money.js";
import { taxRateCodes } from "./tax-rate.js";

export const scheduling = z
  .strictObject({
    duration: z.strictObject({
      unit: z.enum(["MONTH"]),
      value: z.number().int().min(1).max(120).meta({ description: "Number of units, 1 to 120 (ten years of months)." }),
    }),
    billingDay: z
      .number()
      .int()
      .min(1)
      .max(31)
      .meta({ description: "Day of the month on which billing happens, 1 to 31." }),
  })
  .meta({ id: "Scheduling" });
export type Scheduling = z.infer<typeof scheduling>;

/** A quantity of product units: same bounds and precision as money, so units × price stays exact in micro-units. */
const units = money.meta({ description: "Committed units, at most 6 decimal places." });

/** A positive quantity of units (a package's size, a tier's bound): exact in micro-units like money. */
const positiveUnits = money.gt(0).meta({ description: "A positive number of units, at most 6 decimal places." });

/** Whether the (possibly invalid) object holds numbers under these keys: what a cross-field rule needs to run. */
const hasNumbers = (value: unknown, ...keys: string[]) =>
  typeof value === "object" &&
  value !== null &&
  keys.every((key) => typeof (value as Record<string, unknown>)[key] === "number");

export const commitment = z
  .strictObject({
    units,
    price: money,
    scheduling: scheduling.optional(),
    overageStrategy: z.enum(["IGNORE", "CHARGE"]).optional().meta({
      description:
        "IGNORE (default): usage beyond `units` is shown, not charged. CHARGE: each unit beyond costs `overagePrice`.",
    }),
    overagePrice: money.optional().meta({
      description: "Price of each unit used beyond `units` in a cycle: required with CHARGE, refused otherwise.",
    }),
    limitStrategy: z.enum(["NONE", "BLOCK"]).optional().meta({
      description:
        "NONE (default): entitlements always grant access. BLOCK: no access once the cycle's usage ≥ `units`.",
    }),
  })
  // A cycle's charge must itself be a valid amount, or no invoice could ever carry it. Both rules also run when a
  // field failed its own check (`when`), so that one answer names every problem of the commitment.
  .refine(({ units, price }) => units * price <= MAX_AMOUNT, {
    path: ["price"],
    message: `units × price must not exceed ${MAX_AMOUNT} USD a cycle`,
    when: ({ value }) => hasNumbers(value, "units", "price"),
  })
  .superRefine(
    ({ overageStrategy, overagePrice }, ctx) => {
      if (overageStrategy === "CHARGE" && overagePrice === undefined) {
        ctx.addIssue({ code: "custom", path: ["overagePrice"], message: "required with overageStrategy CHARGE" });
      }
      if (overageStrategy !== "CHARGE" && overagePrice !== undefined) {
        ctx.addIssue({ code: "custom", path: ["overagePrice"], message: "only with overageStrategy CHARGE" });
      }
    },
    { when: ({ value }) => typeof value === "object" && value !== null },
  )
  .meta({ id: "Commitment" });
export type Commitment = z.infer<typeof commitment>;

/** The price types that charge usage: they need a meter, the product's catalogProductId. */
export const USAGE_PRICE_TYPES = ["PER_UNIT", "PACKAGE", "GRADUATED", "VOLUME"] as const;
export const isUsagePrice = (type: string) => (USAGE_PRICE_TYPES as readonly string[]).includes(type);

export const priceTier = z
  .strictObject({
    upTo: positiveUnits
      .nullable()
      .meta({ description: "Last unit of the tier, inclusive; null on the last tier (no bound)." }),
    unitPrice: money,
    flatPrice: money
      .optional()
      .meta({ description: "Charged once when usage reaches the tier (GRADUATED) or falls in it (VOLUME)." }),
  })
  .meta({ id: "PriceTier" });
export type PriceTier = z.infer<typeof priceTier>;

const tiers = z
  .array(priceTier)
  .min(1)
  .max(20)
  .superRefine((list, ctx) => {
    list.forEach(({ upTo }, index) => {
      const last = index === list.length - 1;
      const previous = index > 0 ? list[index - 1]?.upTo : undefined;
      if (last && upTo !== null)
        ctx.addIssue({ code: "custom", path: [index, "upTo"], message: "the last tier must have upTo null" });
      if (!last && upTo === null)
        ctx.addIssue({ code: "custom", path: [index, "upTo"], message: "only the last tier may have upTo null" });
      if (upTo !== null && typeof previous === "number" && upTo <= previous) {
        ctx.addIssue({
          code: "custom",
          path: [index, "upTo"],
          message: "must be greater than the previous tier's upTo",
        });
      }
    });
  });

/** How a product is priced: `type` says which fields apply. */
export const pricing = z
  .discriminatedUnion("type", [
    z
      .strictObject({
        type: z.literal("ONE_TIME").meta({ description: "`price` once, in the product's first cycle." }),
        price: money,
      })
      .meta({ title: "OneTimePricing" }),
    z
      .strictObject({ type: z.literal("FLAT").meta({ description: "`price` every cycle." }), price: money })
      .meta({ title: "FlatPricing" }),
    z
      .strictObject({ type: z.literal("PER_UNIT").meta({ description: "`price` × the cycle's usage." }), price: money })
      .meta({ title: "PerUnitPricing" }),
    z
      .strictObject({
        type: z.literal("PACKAGE").meta({ description: "⌈usage / packageSize⌉ × `price`." }),
        price: money,
        packageSize: positiveUnits,
      })
      .meta({ title: "PackagePricing" }),
    z
      .strictObject({
        type: z
          .literal("GRADUATED")
          .meta({ description: "Each unit at its own tier's unitPrice, plus each reached tier's flatPrice." }),
        tiers,
      })
      .meta({ title: "GraduatedPricing" }),
    z
      .strictObject({
        type: z
          .literal("VOLUME")
          .meta({ description: "Every unit at the unitPrice of the tier the total falls in, plus its flatPrice." }),
        tiers,
      })
      .meta({ title: "VolumePricing" }),
    z
      .strictObject({
        type: z
          .literal("PER_SEAT")
          .meta({ description: "`price` per seat per cycle, each seat count billed for its days (see `seats`)." }),
        price: money,
      })
      .meta({ title: "PerSeatPricing" }),
  ])
  .meta({ id: "Pricing" });
export type Pricing = z.infer<typeof pricing>;

/** Checks of a product's price against the rest of it (a superRefine on products). */
function checkProductPricing(
  product: {
    pricing?: { type: string } | undefined;
    catalogProductId?: string | undefined;
    commitment?: { overageStrategy?: string | undefined } | undefined;
  },
  ctx: z.RefinementCtx,
) {
  const usagePrice = product.pricing && isUsagePrice(product.pricing.type) ? product.pricing.type : undefined;
  // Overage is usage beyond the committed units: without a meter there is none, so CHARGE could never charge.
  const meterNeededBy = usagePrice
    ? `${usagePrice} pricing: it names the meter priced`
    : product.commitment?.overageStrategy === "CHARGE" && "overageStrategy CHARGE: it names the meter of the overage";
  if (meterNeededBy && !product.catalogProductId) {
    ctx.addIssue({ code: "custom", path: ["catalogProductId"], message: `required by ${meterNeededBy}` });
  }
  if (usagePrice && product.commitment !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["pricing"],
      message: "a product carries either a commitment or a usage price, not both",
    });
  }
}

/**
 * A discount of a contract's or a product's charges: PERCENT (0 < value ≤ 100) or AMOUNT (value in the contract's
 * currency, per cycle), applied after minimums and maximums and before taxes and credits, never below 0 on a line.
 */
export const discount = z
  .strictObject({
    type: z.enum(["PERCENT", "AMOUNT"]),
    value: money.gt(0).meta({ description: "PERCENT: the percent off (at most 100); AMOUNT: the amount off a cycle." }),
    products: z
      .array(unicodeString().trim().min(1).max(200))
      .min(1)
      .max(100)
      .optional()
      .meta({
        description:
          "On a contract: the products (catalogProductId or displayName) it applies to; absent: the whole invoice " +
          "before tax. Refused on a product's own discount.",
      }),
    cycles: z.number().int().min(1).max(1200).optional().meta({ description: "Only the first N cycles." }),
    from: timestamp.optional().meta({ description: "Only cycles starting at or after it." }),
    until: timestamp.optional().meta({ description: "Only cycles starting before it." }),
  })
  .superRefine(({ type, value }, ctx) => {
    if (type === "PERCENT" && typeof value === "number" && value > 100)
      ctx.addIssue({ code: "custom", path: ["value"], message: "a PERCENT discount is at most 100" });
  })
  .meta({ id: "Discount" });
export type Discount = z.infer<typeof discount>;

const discounts = z.array(discount).max(20);

/** The per-product deal terms: seats, a minimum and a maximum per cycle, discounts. */
function checkProductTerms(
  product: {
    pricing?: { type: string } | undefined;
    seats?: number | undefined;
    minimum?: number | undefined;
    maximum?: number | undefined;
    discounts?: { products?: unknown }[] | undefined;
  },
  ctx: z.RefinementCtx,
) {
  const perSeat = product.pricing?.type === "PER_SEAT";
  if (perSeat && product.seats === undefined)
    ctx.addIssue({ code: "custom", path: ["seats"], message: "required by PER_SEAT pricing" });
  if (!perSeat && product.seats !== undefined)
    ctx.addIssue({ code: "custom", path: ["seats"], message: "only with PER_SEAT pricing" });
  const { minimum, maximum } = product;
  if (typeof minimum === "number" && typeof maximum === "number" && minimum > maximum)
    ctx.addIssue({ code: "custom", path: ["maximum"], message: "must be at least the minimum" });
  product.discounts?.forEach((item, index) => {
    if (item.products !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["discounts", index, "products"],
        message: "a product's discount applies to that product: no `products`",
      });
  });
}

/** ERP settings shared by products and product groups. */
const erpFields = {
  description: text().optional(),
  productErpId: text(200).optional(),
  nsClass: text(200).optional(),
  nsClassId: text(200).optional(),
};

export const product = z
  .strictObject({
    displayName: requiredText(),
    scheduling: scheduling.optional(),
    pricing: pricing.optional(),
    catalogProductId: unicodeString().trim().max(200).optional().meta({
      description:
        "Id of a catalog product: the key of the meter (or the meterId of the measurements) its usage is read from.",
    }),
    ...erpFields,
    commitment: commitment.optional(),
    taxRateCodes: taxRateCodes.optional(),
    paymentTerm: z
      .enum(["Prepayment"])
      .optional()
      .meta({
        description:
          "Prepayment: billed at the start of each cycle. Refused on what charges usage (a usage price, CHARGE " +
          "overage), which is billed at the cycle's end.",
      }),
    seats: z.number().int().min(0).max(1_000_000).optional().meta({
      description:
        "PER_SEAT: the initial number of seats (required there, refused elsewhere); see /contracts/{id}/seats.",
    }),
    minimum: money.optional().meta({
      description:
        "The least the product charges a cycle (prorated by days in a partial cycle): below it, a MINIMUM " +
        "true-up line.",
    }),
    maximum: money.optional().meta({
      description:
        "The most the product charges a cycle (prorated by days in a partial cycle): above it, a MAXIMUM line takes " +
        "the excess off (a negative amount).",
    }),
    discounts: discounts.optional(),
  })
  .superRefine(checkProductPricing)
  .superRefine(checkProductTerms)
  .meta({ id: "Product" });
export type Product = z.infer<typeof product>;

/** The fields of a product that only a top-level product carries: a group's products bill through its line. */
const TOP_LEVEL_ONLY = ["seats", "minimum", "maximum", "discounts"] as const;

export const productGroup = z
  .strictObject({
    displayName: requiredText(),
    products: z.array(product).max(100),
    ...erpFields,
    baseAmount: money.optional(),
    commitment: commitment.optional(),
    taxRateCodes: taxRateCodes.optional(),
  })
  .superRefine(({ products }, ctx) => {
    products.forEach((product, index) => {
      for (const field of TOP_LEVEL_ONLY)
        if (product[field] !== undefined)
          ctx.addIssue({
            code: "custom",
            path: ["products", index, field],
            message: "only on a product outside groups",
          });
      if (product.pricing?.type === "PER_SEAT")
        ctx.addIssue({ code: "custom", path: ["products", index, "pricing"], message: "PER_SEAT outside groups only" });
    });
  })
  .superRefine(({ commitment: shared, products }, ctx) => {
    if (shared === undefined) return;
    if (shared.overageStrategy === "CHARGE" && !products.some((product) => product.catalogProductId)) {
      ctx.addIssue({
        code: "custom",
        path: ["products"],
        message:
          "overageStrategy CHARGE needs a product with a catalogProductId: the group's usage is read from its meter",
      });
    }
    products.forEach((product, index) => {
      if (product.pricing && isUsagePrice(product.pricing.type)) {
        ctx.addIssue({
          code: "custom",
          path: ["products", index, "pricing"],
          message: "the group's commitment covers this usage: no usage price as well",
        });
      }
    });
  })
  .meta({
    id: "ProductGroup",
    description: "Products billed as one line item with shared ERP and commitment settings.",
  });
export type ProductGroup = z.infer<typeof productGroup>;

export const contractStatus = z
  .enum(["InReview", "Active", "Inactive", "Expired", "Terminated", "PendingTermination", "Error"])
  .meta({ id: "ContractStatus" });
export type ContractStatus = z.infer<typeof contractStatus>;
/** Contracts in these states are billed; InReview, Inactive, Error and Terminated (deleted) ones are not. */
export const BILLED_CONTRACT_STATUSES: ReadonlySet<ContractStatus> = new Set([
  "Active",
  "PendingTermination",
  "Expired",
]);

/**
 * Contracts are billed between these instants (UTC): an invoice's id begins with its cycle's start in 32-bit
 * seconds, which spans 1970 to 2106; 2100 is the service's horizon, past which no cycle is billed.
 */
export const CONTRACT_DATES = { from: Date.UTC(1970, 0, 1), until: Date.UTC(2100, 0, 1) };

/**
 * The contract dates the service takes, as one pattern the document states: years 1970 through 2099 as written, and,
 * so that the instant stays within CONTRACT_DATES whatever the offset, 1970-01-01 only at UTC or behind it and
 * 2099-12-31 only at UTC or ahead of it.
 */
export const CONTRACT_DATE_PATTERN = (() => {
  const day31 = "(?:0[1-9]|[12]\\d|3[01])";
  const day30 = "(?:0[1-9]|[12]\\d|30)";
  const february = "02-(?:0[1-9]|1\\d|2[0-8])";
  const anyDay = `(?:(?:0[13578]|1[02])-${day31}|(?:0[469]|11)-${day30}|${february})`;
  const after1970New = `(?:01-(?:0[2-9]|[12]\\d|3[01])|(?:0[3578]|1[02])-${day31}|(?:0[469]|11)-${day30}|${february})`;
  const before2099Eve = `(?:(?:0[13578]|10)-${day31}|12-${day30}|(?:0[469]|11)-${day30}|${february})`;
  const middleYears = "(?:19(?:7[1-9]|[89]\\d)|20(?:[0-8]\\d|9[0-8]))";
  const leapYears = "(?:19(?:7[26]|8[048]|9[26])|20(?:[02468][048]|[13579][26]))";
  const time = "T(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?";
  const hours = "(?:[01]\\d|2[0-3]):[0-5]\\d";
  const anyOffset = `(?:Z|[+-]${hours})`;
  const dates = `${middleYears}-${anyDay}|${leapYears}-02-29|1970-${after1970New}|2099-${before2099Eve}`;
  const days = `(?:${dates})${time}${anyOffset}`;
  const firstDay = `1970-01-01${time}(?:Z|[+-]00:00|-${hours})`;
  const lastDay = `2099-12-31${time}(?:Z|[+-]00:00|\\+${hours})`;
  return new RegExp(`^(?:${days}|${firstDay}|${lastDay})$`);
})();

/** A date a caller sets (contract dates, credit grant dates): within the service's horizon, 1970 through 2099. */
export const serviceDate = timestamp
  // A value that is no timestamp at all already has its issue; this one is about the range.
  .refine(
    (value) => !timestamp.safeParse(value).success || CONTRACT_DATE_PATTERN.test(value),
    "must be from 1970 through 2099",
  )
  .meta({
    pattern: CONTRACT_DATE_PATTERN.source,
    description: "From 1970 through 2099; on 1970-01-01 at UTC or behind it, on 2099-12-31 at UTC or ahead of it.",
  });

/**
 * A customer's own terms for one product of a plan (docs/decisions.md, "Plans"): the fields given replace the plan's
 * on that product, in every version the contract follows, migrations included.
 */
export const planOverride = z
  .strictObject({
    product: requiredText().meta({ description: "The plan product's `displayName` (or `catalogProductId`)." }),
    pricing: pricing.optional(),
    commitment: commitment.optional(),
    taxRateCodes: taxRateCodes.optional(),
    discountPercent: z.number().min(0).max(100).multipleOf(0.01).optional().meta({
      description: "Every price of the product (pricing, commitment) less this percent, rounded to micro-units.",
    }),
  })
  .meta({ id: "PlanOverride" });
export type PlanOverride = z.infer<typeof planOverride>;

/** The plan version a contract's current terms follow; absent on a custom contract. */
export const contractPlan = z
  .object({ id: z.string(), key: z.string(), version: z.number().int().min(1) })
  .meta({ id: "ContractPlan" });
export type ContractPlan = z.infer<typeof contractPlan>;

/** What names a plan in a contract creation (instead of `products`). */
const planFields = {
  planId: resourceRef.optional().meta({ description: "Id or key of a plan: the contract takes a version's terms." }),
  planVersion: z.number().int().min(1).optional().meta({ description: "Default: the plan's current version." }),
  overrides: z.array(planOverride).max(100).optional(),
};

/** `planId` instead of terms: not both (400 naming `products`), and planVersion/overrides only with a plan. */
function checkPlanChoice(
  input: { planId?: string | undefined; planVersion?: number | undefined; overrides?: unknown[] | undefined } & {
    products?: unknown[] | undefined;
    productGroups?: unknown[] | undefined;
  },
  ctx: z.RefinementCtx,
) {
  if (input.planId === undefined) {
    for (const field of ["planVersion", "overrides"] as const)
      if (input[field] !== undefined) ctx.addIssue({ code: "custom", path: [field], message: "only with planId" });
    return;
  }
  for (const field of ["products", "productGroups"] as const)
    if (input[field] !== undefined)
      ctx.addIssue({ code: "custom", path: [field], message: "not with planId: the plan gives the terms" });
}

/** Fields a caller writes; the service adds id, createdAt, updatedAt and, on deletion, deletedAt. */
const contractFields = {
  startDate: serviceDate,
  endDate: serviceDate.optional().meta({
    description:
      "Absent for an open-ended contract. On a later UTC day than startDate: the contract covers the UTC days from " +
      "startDate's up to, not including, endDate's.",
  }),
  signatureDate: timestamp.optional(),
  customerId: resourceRef.meta({
    description: "Id or externalId of a customer of the caller's account; stored, and answered, as its id.",
  }),
  name: requiredText(),
  crmOpportunityId: text(200).optional(),
  products: z.array(product).max(100).optional(),
  productGroups: z.array(productGroup).max(100).optional(),
  taxRateCodes: taxRateCodes.optional(),
  accountManager: text(200).optional(),
  shouldProRateInvoices: z.boolean().default(false),
  autoRenewContract: z.boolean().default(true),
  customFields: z.array(customField).max(100).optional(),
  customFieldValues: z.array(customFieldValue).max(100).optional(),
  status: contractStatus.default("Active"),
  minimumCommitment: z
    .strictObject({
      amount: money.gt(0),
      period: z.enum(["CYCLE", "TERM"]).meta({
        description:
          "CYCLE: each invoice's cycle (prorated by days; a cycle billed in advance and in arrears is trued up " +
          "once, in arrears); TERM: the contract's days up to its endDate (then required), trued up on the term's " +
          "last invoice from its finalized invoices.",
      }),
    })
    .optional()
    .meta({
      id: "MinimumCommitment",
      description:
        "The least the contract charges (before tax, after discounts): a MINIMUM true-up line makes up the rest.",
    }),
  discounts: discounts.optional().meta({ description: "Discounts of the whole invoice, or of the products named." }),
  billingThresholds: z
    .array(z.strictObject({ amount: money.gt(0) }))
    .min(1)
    .max(10)
    .optional()
    .meta({
      id: "BillingThresholds",
      description:
        "Threshold (progressive) billing, in the contract's currency, strictly increasing: when a cycle's charges " +
        "accrued so far (before tax) reach an amount, an invoice of what accrued is issued at once, less what the " +
        "cycle's earlier threshold invoices billed; the cycle's final invoice takes off what they billed " +
        "(THRESHOLD_BILLED lines). Set at creation.",
    }),
  currency: currencyCode.optional().meta({
    description:
      "ISO 4217 code of every amount of the contract, its invoices, payments and credit notes; default the account's " +
      "`defaultCurrency` (itself default USD). Line amounts round to its minor unit; unit prices may be finer.",
  }),
  creditGrants: contractCreditGrants.optional(),
};

const utcDay = (value: string) => Math.floor(Date.parse(value) / DAY_MS);

/**
 * A contract covers whole UTC days, from its start's day up to, not including, its end's day: the end must fall
 * on a later UTC day than the start, offsets taken into account. Zod runs this even when a date failed its format
 * check: such a date passes here, as its own field already carries the issue.
 */
const endsAfterStartDay = ({ startDate, endDate }: { startDate: string; endDate?: string | undefined }) =>
  endDate === undefined ||
  !timestamp.safeParse(endDate).success ||
  !timestamp.safeParse(startDate).success ||
  utcDay(endDate) > utcDay(startDate);

/** Whether a product charges usage: a usage price, or overage under CHARGE. */
const chargesUsage = (product: Product) =>
  (product.pricing !== undefined && isUsagePrice(product.pricing.type)) ||
  product.commitment?.overageStrategy === "CHARGE";

const PREPAID_USAGE = "usage is known at a cycle's end: billed at its start, it would bill none of it on time";

/**
 * Prepayment on what charges usage is refused (400 naming `paymentTerm`), as Stripe refuses metered prices billed
 * in advance: a prepaid invoice is made at its cycle's start, so it would bill no usage when run on time and the
 * usage so far when run late. A group is prepaid as a whole when one of its products is, so a group charging usage
 * refuses Prepayment on each of its products. Checked on creation only: contracts stored before stay readable.
 */
export function refusePrepaidUsage(
  {
    products = [],
    productGroups = [],
  }: { products?: Product[] | undefined; productGroups?: ProductGroup[] | undefined },
  ctx: z.RefinementCtx,
) {
  products.forEach((product, index) => {
    if (product.paymentTerm === "Prepayment" && chargesUsage(product))
      ctx.addIssue({ code: "custom", path: ["products", index, "paymentTerm"], message: PREPAID_USAGE });
  });
  productGroups.forEach((group, groupIndex) => {
    if (group.commitment?.overageStrategy !== "CHARGE" && !group.products.some(chargesUsage)) return;
    group.products.forEach((product, index) => {
      if (product.paymentTerm !== "Prepayment") return;
      ctx.addIssue({
        code: "custom",
        path: ["productGroups", groupIndex, "products", index, "paymentTerm"],
        message: `the group charges usage; ${PREPAID_USAGE}`,
      });
    });
  });
}

export const contractCreate = z
  .strictObject({ ...contractFields, ...planFields })
  .refine(endsAfterStartDay, {
    path: ["endDate"],
    message: "must fall on a later UTC day than startDate (contracts cover whole days)",
  })
  .superRefine(refusePrepaidUsage)
  .superRefine(checkPlanChoice)
  .refine(({ minimumCommitment, endDate }) => minimumCommitment?.period !== "TERM" || endDate !== undefined, {
    path: ["minimumCommitment", "period"],
    message: "TERM needs an endDate (the term it sums)",
  })
  .superRefine(({ billingThresholds = [], minimumCommitment }, ctx) => {
    if (billingThresholds.length > 0 && minimumCommitment)
      ctx.addIssue({ code: "custom", path: ["billingThresholds"], message: "not with a minimumCommitment (yet)" });
    billingThresholds.forEach(({ amount }, index) => {
      const before = billingThresholds[index - 1];
      if (before && amount <= before.amount)
        ctx.addIssue({ code: "custom", path: ["billingThresholds", index, "amount"], message: "must be increasing" });
    });
  })
  .meta({ id: "ContractCreate" });
/** A create request after validation, defaults applied. */
export type ContractCreate = z.infer<typeof contractCreate>;
/** A create request as a caller writes it (fields with defaults may be left out). */
export type ContractCreateInput = z.input<typeof contractCreate>;

export const contract = z
  .object({
    id: z.string(),
    ...contractFields,
    // Always present in responses: the defaults were applied on creation.
    shouldProRateInvoices: z.boolean(),
    autoRenewContract: z.boolean(),
    status: contractStatus,
    currency: currencyCode,
    renewals: z.number().int().min(0).meta({ description: "Terms added by automatic renewal (autoRenewContract)." }),
    plan: contractPlan.optional(),
    overrides: z.array(planOverride).optional().meta({ description: "On a plan's contract: its own terms." }),
    version: z.number().int().min(1).meta({
      description:
        "The version of the terms shown (`products`, `productGroups`): 1 as created, one more per amendment of them.",
    }),
    termsEffectiveFrom: timestamp.optional().meta({
      description: "From version 2 on: the UTC day these terms bill from (earlier days keep the earlier versions).",
    }),
    terminationAt: timestamp
      .optional()
      .meta({ description: "When the contract ends early: set by terminate (PendingTermination until then)." }),
    terminationReason: text(500).optional(),
    inactivePeriods: z
      .array(z.object({ from: timestamp, to: timestamp.optional() }))
      .optional()
      .meta({ description: "UTC days the contract was paused (Inactive), `to` excluded; no `to` while it still is." }),
    createdAt: timestamp,
    updatedAt: timestamp,
    deletedAt: timestamp
      .optional()
      .meta({ description: "When the contract was deleted; only in the response of the deletion." }),
  })
  .meta({ id: "Contract" });
export type Contract = z.infer<typeof contract>;

export const contractIdParam = z.object({ contractId: resourceRef });

export const contractListQuery = z.object({
  ...pageQuery,
  customerId: resourceRef.optional().meta({ description: "Only this customer's contracts (its id or externalId)." }),
});
export const contractList = z.object({ contracts: z.array(contract), ...pageInfo });
export type ContractList = z.infer<typeof contractList>;

/**
 * A change of a contract: a pause (`status: Inactive`) or its end (`Active`) from `effectiveFrom`, and amendments of
 * the fields that do not price (fields given replace the stored ones; fields left out are kept).
 */
export const contractUpdate = z
  .strictObject({
    status: z.enum(["Active", "Inactive"]).optional(),
    effectiveFrom: serviceDate.optional().meta({
      description:
        "With `status`, the UTC day it takes effect (default today); with `products`/`productGroups` (then " +
        "required), the UTC day the new terms bill from. A past day only where no invoice covers it.",
    }),
    name: contractFields.name.optional(),
    crmOpportunityId: contractFields.crmOpportunityId,
    accountManager: contractFields.accountManager,
    customFields: contractFields.customFields,
    customFieldValues: contractFields.customFieldValues,
    autoRenewContract: z
      .boolean()
      .optional()
      .meta({
        description:
          "false only while no invoice covers days past the end it keeps (endDate, the new one when given), " +
          "else 409: a renewing contract's prepaid cycle across its end is billed whole.",
      }),
    currency: currencyCode.optional().meta({ description: "Only until the contract's first invoice (then 409)." }),
    endDate: serviceDate.optional().meta({
      description: "On a later UTC day than startDate, and not before a day an invoice of the contract covers.",
    }),
    products: contractFields.products,
    productGroups: contractFields.productGroups,
    planVersion: z.number().int().min(1).optional().meta({
      description: "On a plan's contract: moves it to that version of its plan from `effectiveFrom` (then required).",
    }),
    dropOverrides: z
      .boolean()
      .optional()
      .meta({ description: "With planVersion: drop the overrides of products the version no longer has." }),
    creditGrants: contractFields.creditGrants.meta({
      description: "Replaces the contract's credit grants for the periods not issued yet; `[]` stops them.",
    }),
    minimumCommitment: contractFields.minimumCommitment
      .unwrap()
      .nullable()
      .optional()
      .meta({
        description:
          "Replaces the contract's minimum commitment from `effectiveFrom` (then required); `null` removes it. An " +
          "invoice is priced by the one in force on its cycle's first day.",
      }),
    discounts: discounts.optional().meta({
      description:
        "Replaces the contract's discounts from `effectiveFrom` (then required); `[]` removes them. An invoice is " +
        "priced by those in force on its cycle's first day; `cycles` counts from the contract's first cycle.",
    }),
  })
  .superRefine(refusePrepaidUsage)
  .meta({ id: "ContractUpdate" });
export type ContractUpdate = z.infer<typeof contractUpdate>;
/** The fields an amendment may change besides `endDate` and the terms (`products`, `productGroups`). */
export type ContractAmendment = Omit<
  ContractUpdate,
  | "status"
  | "effectiveFrom"
  | "endDate"
  | "products"
  | "productGroups"
  | "planVersion"
  | "dropOverrides"
  | "minimumCommitment"
  | "discounts"
>;

export const contractTermination = z
  .strictObject({
    at: serviceDate.optional().meta({
      description:
        "Default now. In the future: PendingTermination until then. Past or future: only where no invoice covers it.",
    }),
    reason: text(500).optional(),
  })
  .meta({ id: "ContractTermination" });
export type ContractTermination = z.infer<typeof contractTermination>;

export const contractHistoryEntry = z
  .object({
    at: timestamp,
    kind: z.enum(["transition", "renewal", "amendment", "seats"]),
    from: contractStatus.optional(),
    to: contractStatus.optional(),
    endDate: timestamp.optional().meta({ description: "On a renewal: the end of the term it added." }),
    fields: z.array(z.string()).optional().meta({ description: "On an amendment: the fields it changed." }),
    seats: z
      .object({ product: z.string(), quantity: z.number().int(), effectiveFrom: timestamp })
      .optional()
      .meta({ description: "On a change of seats: the product, its new quantity and the UTC day it bills from." }),
    by: z.string().meta({ description: "The token that made the change; `system` for a time-driven one." }),
  })
  .meta({ id: "ContractHistoryEntry" });
export type ContractHistoryEntry = z.infer<typeof contractHistoryEntry>;
export const contractHistory = z.object({ history: z.array(contractHistoryEntry) });

/** A change of a PER_SEAT product's seats (POST /contracts/{id}/seats). */
export const seatChangeCreate = z
  .strictObject({
    product: requiredText().meta({ description: "The PER_SEAT product: its displayName or catalogProductId." }),
    quantity: z.number().int().min(0).max(1_000_000).meta({ description: "The number of seats from effectiveFrom." }),
    effectiveFrom: serviceDate.meta({
      description:
        "The UTC day the quantity bills from: not before the contract's start; a day an invoice covers only in a " +
        "prepaid cycle already issued (the next invoice then adjusts), else 409.",
    }),
  })
  .meta({ id: "SeatChangeCreate" });
export type SeatChangeCreate = z.infer<typeof seatChangeCreate>;

export const seatScheduleEntry = z
  .object({
    product: z.string().meta({ description: "The PER_SEAT product's displayName." }),
    quantity: z.number().int().min(0),
    effectiveFrom: timestamp.meta({ description: "The UTC day the quantity bills from." }),
    enteredAt: timestamp
      .optional()
      .meta({ description: "When the change was entered (absent: the contract's seats)." }),
    adjustedOnNextInvoice: z.boolean().meta({
      description:
        "Entered after its prepaid cycle was issued: the next invoice adjusts for it (seats added, or refunded).",
    }),
  })
  .meta({ id: "SeatScheduleEntry" });
export const seatSchedule = z.object({ seats: z.array(seatScheduleEntry) }).meta({ id: "SeatSchedule" });
export type SeatSchedule = z.infer<typeof seatSchedule>;
