import { z } from "zod";
import { serviceId, timestamp } from "./common.js";
import { currencyCode } from "./currency.js";
import { money } from "./money.js";

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

const agingAmount = (description: string) => money.meta({ description });

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
