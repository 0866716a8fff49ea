import type { ObjectId } from "mongodb";
import type { InvoiceDraftInMicros } from "../domain/billing/pipeline.js";
import { newInvoiceLife } from "../domain/invoices/life.js";
import { type InvoiceDoc, lifeFields, storedPricingOf, storePaymentInfo } from "./stored-invoices.js";

/**
 * Where an invoice goes: its id and cycle key (derived by the billing engine), and the meters it priced; for the
 * billing engine's drafts, when runs finalize it and the `at` of the run that priced it.
 */
export interface InvoicePlacement {
  id: ObjectId;
  cycleKey: string;
  meterKeys: string[];
  finalizesAt?: Date;
  pricedAt?: Date;
}

/** A new invoice as stored, at `seq` of its account: its first life, nothing paid. */
export function newInvoiceDoc(
  accountId: string,
  draft: InvoiceDraftInMicros,
  placement: InvoicePlacement,
  seq: number,
): InvoiceDoc {
  const {
    billingCycle,
    revenueBreakdown,
    dueDate,
    amountMicros,
    lineItems,
    paymentInfo,
    billingStatus: _,
    ...fields
  } = draft;
  const now = new Date();
  return {
    _id: placement.id,
    accountId,
    seq,
    cycleKey: placement.cycleKey,
    meterKeys: placement.meterKeys,
    ...(placement.finalizesAt && { finalizesAt: placement.finalizesAt }),
    ...(placement.pricedAt && { pricedAt: placement.pricedAt }),
    ...fields,
    billingCycle: { startTime: new Date(billingCycle.startTime), endTime: new Date(billingCycle.endTime) },
    dueDate: new Date(dueDate),
    ...(paymentInfo && { paymentInfo: storePaymentInfo(paymentInfo) }),
    ...lifeFields(newInvoiceLife(storedPricingOf(draft))),
    createdAt: now,
    updatedAt: now,
  };
}
