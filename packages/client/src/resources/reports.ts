import type { collectionsQuery, mrrQuery, receivablesQuery, revenueQuery } from "@billing/shared";
import type { RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type { CollectionsReport, Input, MrrReport, ReceivablesReport, RevenueReport } from "../types.js";

export type ReceivablesParams = Input<typeof receivablesQuery>;
export type RevenueParams = Input<typeof revenueQuery>;
export type MrrParams = Input<typeof mrrQuery>;
export type CollectionsParams = Input<typeof collectionsQuery>;

export interface ReportsApi {
  /**
   * The receivables aging in `currency` as of `asOf` (default now): per customer and in total, buckets `current`,
   * `1-30`, `31-60`, `61-90`, `90+` days past due.
   */
  receivables(params: ReceivablesParams, options?: RequestOptions): Promise<ReceivablesReport>;
  /** Revenue per `DAY` or `MONTH` of [from, to) in `currency`: billed, recognized, deferred and unbilled. */
  revenue(params: RevenueParams, options?: RequestOptions): Promise<RevenueReport>;
  /**
   * MRR per month of [from, to) in `currency`: recurring, usage, ARR and movements by contract; `customerId` (its id or
   * externalId): that customer's contracts only.
   */
  mrr(params: MrrParams, options?: RequestOptions): Promise<MrrReport>;
  /** Money collected over [from, to) in `currency`: payments by the date paid, provider refunds apart, and net. */
  collections(params: CollectionsParams, options?: RequestOptions): Promise<CollectionsReport>;
}

export function reportsResource({ trpc, call }: Transport): ReportsApi {
  return {
    receivables: (params, options) =>
      call("safe", (attempt) => trpc.reports.receivables.query(params, attempt), options),
    revenue: (params, options) => call("safe", (attempt) => trpc.reports.revenue.query(params, attempt), options),
    mrr: (params, options) => call("safe", (attempt) => trpc.reports.mrr.query(params, attempt), options),
    collections: (params, options) =>
      call("safe", (attempt) => trpc.reports.collections.query(params, attempt), options),
  };
}
