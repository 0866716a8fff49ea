import { z } from "zod";
import { resourceRef, serviceId, timestamp } from "./common.js";
import { product, productGroup, serviceDate } from "./contract.js";
import { currencyCode } from "./currency.js";
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

/** At most this many invoices (cycles) per simulation: each one reads its usage. */
export const MAX_SIMULATED_CYCLES = 24;

/**
 * A simulation's work, counted from its terms and period before anything is read (400 beyond): the tiers it prices
 * (cycles × prices × tiers, a price without tiers counting 1) plus the days of usage it reads (meters × days).
 */
export const MAX_SIMULATION_UNITS = 125_000;

export const invoiceSimulationRequest = z
  .strictObject({
    customerId: resourceRef.meta({ description: "Id or externalId of a customer of the caller's account." }),
    startDate: serviceDate.meta({ description: "First moment of the simulated period: cycles starting from then." }),
    endDate: serviceDate.meta({
      description: "End of the simulated period, excluded: after startDate and not later than now.",
    }),
    products: z
      .array(product)
      .max(100)
      .optional()
      .meta({ description: "The terms to simulate; with `contractId`, they replace the contract's products." }),
    productGroups: z
      .array(productGroup)
      .max(100)
      .optional()
      .meta({ description: "The terms to simulate; with `contractId`, they replace the contract's product groups." }),
    contractId: resourceRef
      .optional()
      .meta({ description: "A contract of the customer: its cycles, proration, pauses and current terms." }),
  })
  .meta({ id: "InvoiceSimulationRequest" });
export type InvoiceSimulationRequest = z.infer<typeof invoiceSimulationRequest>;

/** A simulated invoice: a preview's fields, without `contractId` when the terms were simulated without a contract. */
export const simulatedInvoice = invoicePreview
  .extend({ contractId: serviceId.optional() })
  .meta({ id: "SimulatedInvoice" });

const signedTotal = z
  .number()
  .meta({ description: "In `currency`, exact to its minor unit; may exceed a single invoice's bound." });

export const invoiceSimulation = z
  .object({
    invoices: z.array(simulatedInvoice).meta({
      description:
        "The invoices the terms would have produced, oldest first, no credits applied; at most " +
        `${MAX_SIMULATED_CYCLES}.`,
    }),
    currency: currencyCode.meta({
      description:
        "The currency of the simulated terms (the contract's, else the account's default) and of the totals.",
    }),
    simulatedTotal: signedTotal.meta({ description: "Sum of the simulated invoices' totals." }),
    actualTotal: signedTotal.meta({
      description:
        "Sum of the totals before credits of the customer's finalized invoices (of the contract, when given) of the " +
        "same cycles, in `currency` (invoices in another currency are left out).",
    }),
    difference: signedTotal.meta({ description: "simulatedTotal − actualTotal: negative when the terms cost less." }),
  })
  .meta({ id: "InvoiceSimulation" });
export type InvoiceSimulation = z.infer<typeof invoiceSimulation>;

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
