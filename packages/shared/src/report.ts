import { z } from "zod";
import { resourceRef, serviceId, timestamp } from "./common.js";
import { currencyCode } from "./currency.js";

/**
 * The receivables aging: what customers owe on finalized invoices, by how long it is past due. Buckets count whole
 * UTC days past the due date: `current` (not yet past due), `1-30`, `31-60`, `61-90`, `90+`.
 */
export const receivablesQuery = z.object({
  asOf: timestamp
    .optional()
    .meta({ description: "The moment the report answers for (default now); a past one answers as of then." }),
  currency: currencyCode.meta({ description: "Only invoices in this currency; every amount is in it." }),
});
export type ReceivablesQuery = z.infer<typeof receivablesQuery>;

/**
 * A report's figure, in its currency: a sum over many invoices, so not bound by the 1,000,000,000 of one amount, and
 * exact to the micro-unit as every amount (a decimal number here, micro-units inside).
 */
const figure = (description: string) => z.number().meta({ description });
const agingAmount = figure;

export const receivablesAging = z
  .object({
    current: agingAmount("Owed and not yet past its due date (0 days past due or less)."),
    "1-30": agingAmount("1 to 30 days past due."),
    "31-60": agingAmount("31 to 60 days past due."),
    "61-90": agingAmount("61 to 90 days past due."),
    "90+": agingAmount("91 days past due and more."),
    total: agingAmount("The sum of the buckets."),
  })
  .meta({ id: "ReceivablesAging" });
export type ReceivablesAging = z.infer<typeof receivablesAging>;

export const receivablesReport = z
  .object({
    asOf: timestamp,
    currency: currencyCode,
    customers: z
      .array(z.object({ customerId: serviceId, aging: receivablesAging }).meta({ id: "CustomerReceivables" }))
      .meta({ description: "Each customer owing something as of asOf, by id." }),
    total: receivablesAging.meta({ description: "All customers." }),
  })
  .meta({ id: "ReceivablesReport" });
export type ReceivablesReport = z.infer<typeof receivablesReport>;

/** At most this many periods a call: a year of days, ten years of months. */
export const MAX_REVENUE_PERIODS = { DAY: 366, MONTH: 120 } as const;

const DAY = 86_400_000;

export const revenueQuery = z
  .object({
    from: timestamp.meta({ description: "Inclusive start." }),
    to: timestamp.meta({ description: "Exclusive end." }),
    interval: z
      .enum(["DAY", "MONTH"])
      .default("MONTH")
      .meta({ description: "UTC days or calendar months (the first and last cut at from and to)." }),
    currency: currencyCode.meta({ description: "Only invoices in this currency; every amount is in it." }),
    customerId: resourceRef.optional().meta({ description: "Only this customer's invoices: its id or externalId." }),
  })
  .superRefine(({ from, to, interval }, ctx) => {
    const span = Date.parse(to) - Date.parse(from);
    if (!(span > 0)) ctx.addIssue({ code: "custom", path: ["to"], message: "must be after from" });
    else if (interval === "DAY" && span > MAX_REVENUE_PERIODS.DAY * DAY)
      ctx.addIssue({ code: "custom", path: ["to"], message: `at most ${MAX_REVENUE_PERIODS.DAY} days after from` });
    else if (interval === "MONTH" && span > (MAX_REVENUE_PERIODS.MONTH / 12) * 366 * DAY)
      ctx.addIssue({ code: "custom", path: ["to"], message: `at most ${MAX_REVENUE_PERIODS.MONTH} months after from` });
  });
export type RevenueQuery = z.infer<typeof revenueQuery>;

const signed = figure;

export const revenuePeriod = z
  .object({
    start: timestamp,
    end: timestamp,
    billed: signed("Revenue of the invoices issued in the period (tax excluded), less OFFSET credit notes made in it."),
    recognized: signed("Revenue earned in the period: lines evenly per day over their cycle, one-time on their day."),
    deferred: signed("At the period's end: billed by then and not yet recognized."),
    unbilled: signed(
      "Revenue recognized in the period up to now by the open cycles (running now, not yet invoiced) of live " +
        "contracts, priced as of now as a preview prices them: usage so far evenly over the cycle's days up to now, " +
        "other lines evenly over the cycle. 0 for a period after now.",
    ),
  })
  .meta({ id: "RevenuePeriod" });
export type RevenuePeriod = z.infer<typeof revenuePeriod>;

export const revenueReport = z
  .object({
    currency: currencyCode,
    interval: z.enum(["DAY", "MONTH"]),
    customerId: serviceId.nullable(),
    periods: z.array(revenuePeriod),
    unbilled: z
      .object({
        asOf: timestamp.meta({ description: "The moment the open cycles were priced as of (the account's now)." }),
        contracts: z.number().int().meta({ description: "Live contracts priced for `unbilled`, in id order." }),
        truncated: z.boolean().meta({
          description: "Whether live contracts were left unpriced: at most 50 a call, within 5 s of pricing.",
        }),
      })
      .meta({ description: "How `unbilled` was computed: bounded per call." }),
  })
  .meta({ id: "RevenueReport" });
export type RevenueReport = z.infer<typeof revenueReport>;

/** The movements of MRR a month: each names its kind's contracts. */
export const MRR_MOVEMENTS = ["new", "expansion", "contraction", "churn", "reactivation"] as const;

export const mrrQuery = z
  .object({
    from: timestamp.meta({ description: "Inclusive start: the first month is the one it falls in, cut at it." }),
    to: timestamp.meta({ description: "Exclusive end: the last month is cut at it." }),
    currency: currencyCode.meta({ description: "Only contracts in this currency; every amount is in it." }),
    customerId: resourceRef
      .optional()
      .meta({ description: "Only this customer's contracts (its id or externalId): its own MRR and movements." }),
  })
  .superRefine(({ from, to }, ctx) => {
    const span = Date.parse(to) - Date.parse(from);
    if (!(span > 0)) ctx.addIssue({ code: "custom", path: ["to"], message: "must be after from" });
    else if (span > (MAX_REVENUE_PERIODS.MONTH / 12) * 366 * DAY)
      ctx.addIssue({ code: "custom", path: ["to"], message: `at most ${MAX_REVENUE_PERIODS.MONTH} months after from` });
  });
export type MrrQuery = z.infer<typeof mrrQuery>;

export const mrrContractMove = z
  .object({
    contractId: serviceId,
    customerId: serviceId,
    before: figure("The contract's MRR at the end of the month before."),
    after: figure("The contract's MRR at the end of this month."),
  })
  .meta({ id: "MrrContractMove" });
export type MrrContractMove = z.infer<typeof mrrContractMove>;

const movement = (description: string) =>
  z
    .object({
      amount: figure("after − before summed over the contracts (negative for contraction and churn)."),
      contracts: z.array(mrrContractMove),
    })
    .meta({ description });

export const mrrMonth = z
  .object({
    start: timestamp,
    end: timestamp,
    mrr: figure("At the month's end: recurring + usage of the contracts live then."),
    arr: figure("12 × mrr."),
    recurring: figure("FLAT, PER_SEAT (× seats) and COMMITMENT charges of a cycle (a month) of the live terms."),
    usage: figure("Usage revenue of each live contract's trailing completed cycle (its last finalized invoice)."),
    movements: z.object({
      new: movement("0 at the month before's end, more now, and never more than 0 before."),
      expansion: movement("More than 0 before, more now."),
      contraction: movement("More than 0 now, less than before."),
      churn: movement("More than 0 before, 0 now (ended, terminated, paused, deleted)."),
      reactivation: movement("0 before, more now, and more than 0 at some earlier time (a pause ended)."),
    }),
  })
  .meta({ id: "MrrMonth" });
export type MrrMonth = z.infer<typeof mrrMonth>;

export const mrrReport = z
  .object({
    currency: currencyCode,
    opening: figure("MRR at `from`: each month's movements carry it to the month's mrr."),
    months: z.array(mrrMonth),
  })
  .meta({ id: "MrrReport" });
export type MrrReport = z.infer<typeof mrrReport>;

/** At most a year a call: the overview asks for a month. */
export const MAX_COLLECTIONS_DAYS = 366;

export const collectionsQuery = z
  .object({
    from: timestamp.meta({ description: "Inclusive start." }),
    to: timestamp.meta({ description: "Exclusive end." }),
    currency: currencyCode.meta({ description: "Only invoices in this currency; every amount is in it." }),
  })
  .superRefine(({ from, to }, ctx) => {
    const span = Date.parse(to) - Date.parse(from);
    if (!(span > 0)) ctx.addIssue({ code: "custom", path: ["to"], message: "must be after from" });
    else if (span > MAX_COLLECTIONS_DAYS * DAY)
      ctx.addIssue({ code: "custom", path: ["to"], message: `at most ${MAX_COLLECTIONS_DAYS} days after from` });
  });
export type CollectionsQuery = z.infer<typeof collectionsQuery>;

export const collectionsReport = z
  .object({
    from: timestamp,
    to: timestamp,
    currency: currencyCode,
    collected: figure("Payments recorded on invoices, dated (the date paid) in [from, to)."),
    refunded: figure("Refunded through a payment provider by PROVIDER credit notes made in [from, to)."),
    net: figure("collected − refunded: the money kept."),
  })
  .meta({ id: "CollectionsReport" });
export type CollectionsReport = z.infer<typeof collectionsReport>;
