import type { BillingStatus, InvoiceStatus } from "@billing/shared";
import type { PageRequest } from "../db/pagination.js";

export interface InvoiceListRequest extends PageRequest {
  customerId?: string | undefined;
  contractId?: string | undefined;
  status?: InvoiceStatus | undefined;
  billingStatus?: BillingStatus | undefined;
  overdue?: boolean | undefined;
}

const STATUSES: InvoiceStatus[] = ["DRAFT", "FINALIZED", "VOIDED"];
const BILLING_STATUSES: BillingStatus[] = ["None", "PartiallyPaid", "Paid", "Uncollectible"];

/**
 * The filter on an invoice's life, in one shape whatever is asked (each field `$in`, all values when not asked), so
 * one index per scope serves every combination; `overdue` compares the stored `owing` and the due date with `now`.
 */
export function lifeFilter({ status, billingStatus, overdue }: InvoiceListRequest, now: Date) {
  const fields = {
    status: { $in: status ? [status] : STATUSES },
    billingStatus: { $in: billingStatus ? [billingStatus] : BILLING_STATUSES },
  };
  if (overdue === true) return { ...fields, owing: { $in: [true] }, dueDate: { $lt: now } };
  if (overdue === false)
    return { ...fields, $or: [{ owing: { $in: [false] } }, { owing: { $in: [true] }, dueDate: { $gte: now } }] };
  return { ...fields, owing: { $in: [true, false] } };
}

/** Whether a list asks about the invoices' life (status, billingStatus, overdue). */
export const filtersLife = ({ status, billingStatus, overdue }: InvoiceListRequest) =>
  status !== undefined || billingStatus !== undefined || overdue !== undefined;
