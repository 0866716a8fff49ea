import { z } from "zod";
import { resourceRef, timestamp } from "./common.js";
import { billingCycle, invoicePreview } from "./invoice.js";

const previewAt = timestamp
  .optional()
  .meta({ description: "The moment to preview; now when omitted. May be in the future." });
const runAt = timestamp.optional().meta({
  description:
    "The moment to bill as of; now when omitted. At most 5 minutes later than the server's clock (400 otherwise).",
});

export const invoicePreviewRequest = z
  .strictObject({ contractId: resourceRef, at: previewAt })
  .meta({ id: "InvoicePreviewRequest" });
export type InvoicePreviewRequest = z.infer<typeof invoicePreviewRequest>;
export const invoicePreviewResponse = z.object({ invoice: invoicePreview });

export const billingRunRequest = z.strictObject({ at: runAt }).meta({ id: "BillingRunRequest" });
export type BillingRunRequest = z.infer<typeof billingRunRequest>;

export const billingRun = z
  .object({
    at: timestamp,
    contractsBilled: z
      .number()
      .int()
      .min(0)
      .meta({ description: "Billable contracts with invoices due that this call examined." }),
    invoicesCreated: z.number().int().min(0),
    invoiceIds: z
      .array(z.string())
      .meta({ description: "Ids of the invoices this run created (not those that already existed)." }),
    failures: z
      .array(z.object({ contractId: z.string(), billingCycle: billingCycle.optional(), message: z.string() }))
      .meta({
        description:
          "Invoices that could not be made; the contract's other invoices were, and runs an hour later try again.",
      }),
    hasMore: z.boolean().meta({
      description:
        "True when this call stopped at its work limit with invoices possibly still due: call again with the same " +
        "`at`.",
    }),
  })
  .meta({ id: "BillingRun" });
export type BillingRun = z.infer<typeof billingRun>;
export const billingRunResponse = z.object({ run: billingRun });
