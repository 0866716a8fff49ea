import type { BillingStatus, InvoiceStatus } from "@billing/shared";
import type { PageRequest } from "../db/pagination.js";

export interface InvoiceListRequest extends PageRequest {
  customerId?: string | undefined;
  contractId?: string | undefined;
  status?: InvoiceStatus | undefined;
  billingStatus?: BillingStatus | undefined;
  overdue?: boolean | undefined;
  /** Issued (`finalizedAt`) in [issuedFrom, issuedTo): ISO timestamps, either bound optional. */
  issuedFrom?: string | undefined;
  issuedTo?: string | undefined;
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

/** Whether a list asks for an issue date's bounds. */
export const filtersIssued = ({ issuedFrom, issuedTo }: InvoiceListRequest) =>
  issuedFrom !== undefined || issuedTo !== undefined;

/**
 * The issue date's range (`finalizedAt`, null for a draft: never within it), always bounded below so a draft is left
 * out whichever bounds are asked. Sent beside lifeFilter's fields, so its indexes end in `seq, finalizedAt`.
 */
export const issuedFilter = ({ issuedFrom, issuedTo }: InvoiceListRequest) => ({
  finalizedAt: { $gte: new Date(issuedFrom ?? 0), ...(issuedTo !== undefined && { $lt: new Date(issuedTo) }) },
});
