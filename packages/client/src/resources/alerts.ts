import type { alertCreate, alertListQuery } from "@billing/shared";
import { AUTO_PAGE_SIZE, AutoPaginator, followNextCursor, type WithoutCursor } from "../pagination.js";
import type { KeyedRequestOptions, RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type { Alert, AlertList, Input } from "../types.js";

export type AlertCreateParams = Input<typeof alertCreate>;
export type AlertListParams = Input<typeof alertListQuery>;

export interface AlertsApi {
  /**
   * Alerts on a meter's usage: each threshold reached sends `usage.threshold_crossed` once per customer and period.
   * NotFoundError for an unknown meter or customer. Keyed: created once.
   */
  create(input: AlertCreateParams, options?: KeyedRequestOptions): Promise<Alert>;
  get(alertId: string, options?: RequestOptions): Promise<Alert>;
  /** The alert as it was; it fires no more. Keyed. */
  delete(alertId: string, options?: KeyedRequestOptions): Promise<Alert>;
  /** One page: `{ alerts, total, hasMore, nextCursor }`. */
  list(params?: AlertListParams, options?: RequestOptions): Promise<AlertList>;
  listAll(params?: WithoutCursor<AlertListParams>, options?: RequestOptions): AutoPaginator<AlertList, Alert>;
}

export function alertsResource({ trpc, call }: Transport): AlertsApi {
  const list: AlertsApi["list"] = (params = {}, options) =>
    call("safe", (attempt) => trpc.alerts.list.query(params, attempt), options);
  return {
    create: (input, options) =>
      call("keyed", (attempt) => trpc.alerts.create.mutate(input, attempt), options).then((r) => r.alert),
    get: (alertId, options) =>
      call("safe", (attempt) => trpc.alerts.get.query({ alertId }, attempt), options).then((r) => r.alert),
    delete: (alertId, options) =>
      call("keyed", (attempt) => trpc.alerts.delete.mutate({ alertId }, attempt), options).then((r) => r.alert),
    list,
    listAll: (params = {}, options) =>
      new AutoPaginator(
        (cursor) => list({ limit: AUTO_PAGE_SIZE, ...params, cursor }, options),
        (page) => page.alerts,
        followNextCursor,
      ),
  };
}
