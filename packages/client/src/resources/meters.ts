import type { meterCreate, meterListQuery, meterUpdate } from "@billing/shared";
import { AUTO_PAGE_SIZE, AutoPaginator, followNextCursor, type WithoutCursor } from "../pagination.js";
import type { KeyedRequestOptions, RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type { Input, Meter, MeterList } from "../types.js";

export type MeterCreateParams = Input<typeof meterCreate>;
export type MeterUpdateParams = Input<typeof meterUpdate>;
export type MeterListParams = Input<typeof meterListQuery>;

export interface MetersApi {
  /** Creates a meter; `key` must be unique in the account (ConflictError otherwise). Keyed. */
  create(input: MeterCreateParams, options?: KeyedRequestOptions): Promise<Meter>;
  /** By service id or, failing that, by key. */
  get(meterId: string, options?: RequestOptions): Promise<Meter>;
  /** Changes the display name only: how a meter counts never changes. Safe. */
  update(meterId: string, changes: MeterUpdateParams, options?: RequestOptions): Promise<Meter>;
  /** One page: `{ meters, total, hasMore, nextCursor }`. */
  list(params?: MeterListParams, options?: RequestOptions): Promise<MeterList>;
  listAll(params?: WithoutCursor<MeterListParams>, options?: RequestOptions): AutoPaginator<MeterList, Meter>;
}

export function metersResource({ trpc, call }: Transport): MetersApi {
  const list: MetersApi["list"] = (params = {}, options) =>
    call("safe", (attempt) => trpc.meters.list.query(params, attempt), options);
  return {
    create: (input, options) =>
      call("keyed", (attempt) => trpc.meters.create.mutate(input, attempt), options).then((r) => r.meter),
    get: (meterId, options) =>
      call("safe", (attempt) => trpc.meters.get.query({ meterId }, attempt), options).then((r) => r.meter),
    // Safe: setting the same display name again changes nothing.
    update: (meterId, changes, options) =>
      call("safe", (attempt) => trpc.meters.update.mutate({ ...changes, meterId }, attempt), options).then(
        (r) => r.meter,
      ),
    list,
    listAll: (params = {}, options) =>
      new AutoPaginator(
        (cursor) => list({ limit: AUTO_PAGE_SIZE, ...params, cursor }, options),
        (page) => page.meters,
        followNextCursor,
      ),
  };
}
