import { z } from "zod";
import { resourceRef, timestamp } from "./common.js";
import { invoicePreview } from "./invoice.js";

const at = timestamp.optional().meta({ description: "The moment to bill as of; now when omitted." });

export const invoicePreviewRequest = z.strictObject({ contractId: resourceRef, at }).meta({ id: "InvoicePreviewRequest" });
export type InvoicePreviewRequest = z.infer<typeof invoicePreviewRequest>;
export const invoicePreviewResponse = z.object({ invoice: invoicePreview });

export const billingRunRequest = z.strictObject({ at }).meta({ id: "BillingRunRequest" });
export type BillingRunRequest = z.infer<typeof billingRunRequest>;

export const billingRun = z
  .object({
    at: timestamp,
    contractsBilled: z.number().int().min(0).meta({ description: "Billable contracts examined." }),
    invoicesCreated: z.number().int().min(0),
    invoiceIds: z.array(z.string()).meta({ description: "Ids of the invoices this run created (not those that already existed)." }),
    failures: z
      .array(z.object({ contractId: z.string(), message: z.string() }))
      .meta({ description: "Contracts that could not be billed; the others were." }),
  })
  .meta({ id: "BillingRun" });
export type BillingRun = z.infer<typeof billingRun>;
export const billingRunResponse = z.object({ run: billingRun });
