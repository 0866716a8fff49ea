import type {
  invoiceListQuery,
  invoicePreviewRequest,
  invoiceSimulationRequest,
  invoiceVoid,
  paymentCreate,
} from "@billing/shared";
import { AUTO_PAGE_SIZE, AutoPaginator, followNextCursor, type WithoutCursor } from "../pagination.js";
import type { KeyedRequestOptions, RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type {
  Input,
  Invoice,
  InvoiceAdjustment,
  InvoiceList,
  InvoicePayment,
  InvoicePreview,
  InvoiceSimulation,
  Payment,
} from "../types.js";

export type InvoiceListParams = Input<typeof invoiceListQuery>;
export type InvoicePreviewParams = Input<typeof invoicePreviewRequest>;
export type InvoiceSimulationParams = Input<typeof invoiceSimulationRequest>;
export type InvoicePaymentParams = Omit<Input<typeof paymentCreate>, "invoiceId">;
export type InvoiceVoidParams = Omit<Input<typeof invoiceVoid>, "invoiceId">;

export interface InvoicesApi {
  get(invoiceId: string, options?: RequestOptions): Promise<Invoice>;
  /** One page, optionally of one customer's or one contract's invoices. */
  list(params?: InvoiceListParams, options?: RequestOptions): Promise<InvoiceList>;
  listAll(params?: WithoutCursor<InvoiceListParams>, options?: RequestOptions): AutoPaginator<InvoiceList, Invoice>;
  /** The invoice a contract's cycle at `at` (default now) would produce, stored nowhere. */
  preview(params: InvoicePreviewParams, options?: RequestOptions): Promise<InvoicePreview>;
  /**
   * The invoices other terms (or a contract's, the given ones replacing them) would have produced over a past period
   * from the customer's stored usage, stored nowhere, and `{ simulatedTotal, actualTotal, difference }`. At most 24
   * cycles (BadRequestError on endDate beyond). A read token may call it.
   */
  simulate(params: InvoiceSimulationParams, options?: RequestOptions): Promise<InvoiceSimulation>;
  /**
   * Records a payment of a FINALIZED invoice, at most its `amountDue`: `{ invoice, payment }`. ConflictError for an
   * invoice in another status, an amount over what is due, or a `transactionId` already recorded. Keyed.
   */
  pay(invoiceId: string, params: InvoicePaymentParams, options?: KeyedRequestOptions): Promise<InvoicePayment>;
  /** The invoice's payments, in the order recorded. */
  payments(invoiceId: string, options?: RequestOptions): Promise<Payment[]>;
  /**
   * What adjusted the invoice later (late usage): LATE_USAGE lines of later finalized invoices, then USAGE_CORRECTION
   * credit notes on it.
   */
  adjustments(invoiceId: string, options?: RequestOptions): Promise<InvoiceAdjustment[]>;
  /**
   * Voids a draft, or a FINALIZED invoice with nothing paid; the credits it used go back to their grants. Keyed: a
   * retry after a lost answer gets the voided invoice, not a 409.
   */
  void(invoiceId: string, params?: InvoiceVoidParams, options?: KeyedRequestOptions): Promise<Invoice>;
  /**
   * Finalizes a draft now: re-priced, credits applied, numbered. ConflictError when it is not a DRAFT. Keyed: a retry
   * after a lost answer, or a repeat with the same `idempotencyKey`, gets the finalized invoice, not a 409.
   */
  finalize(invoiceId: string, options?: KeyedRequestOptions): Promise<Invoice>;
}

export function invoicesResource({ trpc, call }: Transport): InvoicesApi {
  const list: InvoicesApi["list"] = (params = {}, options) =>
    call("safe", (attempt) => trpc.invoices.list.query(params, attempt), options);
  return {
    get: (invoiceId, options) =>
      call("safe", (attempt) => trpc.invoices.get.query({ invoiceId }, attempt), options).then((r) => r.invoice),
    list,
    // Safe: a preview stores nothing.
    preview: (params, options) =>
      call("safe", (attempt) => trpc.invoices.preview.mutate(params, attempt), options).then((r) => r.invoice),
    // Safe: a simulation stores nothing.
    simulate: (params, options) => call("safe", (attempt) => trpc.invoices.simulate.mutate(params, attempt), options),
    pay: (invoiceId, params, options) =>
      call("keyed", (attempt) => trpc.invoicePayments.pay.mutate({ ...params, invoiceId }, attempt), options),
    payments: (invoiceId, options) =>
      call("safe", (attempt) => trpc.invoicePayments.payments.query({ invoiceId }, attempt), options).then(
        (r) => r.payments,
      ),
    adjustments: (invoiceId, options) =>
      call("safe", (attempt) => trpc.invoicePayments.adjustments.query({ invoiceId }, attempt), options).then(
        (r) => r.adjustments,
      ),
    void: (invoiceId, params = {}, options) =>
      call("keyed", (attempt) => trpc.invoicePayments.void.mutate({ ...params, invoiceId }, attempt), options).then(
        (r) => r.invoice,
      ),
    // Keyed: a retry after a lost answer gets the finalized invoice, not the 409 of finalizing it twice.
    finalize: (invoiceId, options) =>
      call("keyed", (attempt) => trpc.invoices.finalize.mutate({ invoiceId }, attempt), options).then((r) => r.invoice),
    listAll: (params = {}, options) =>
      new AutoPaginator(
        (cursor) => list({ limit: AUTO_PAGE_SIZE, ...params, cursor }, options),
        (page) => page.invoices,
        followNextCursor,
      ),
  };
}
