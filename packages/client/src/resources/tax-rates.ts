import type { taxRateCreate, taxRateListQuery, taxRateUpdate } from "@billing/shared";
import { AUTO_PAGE_SIZE, AutoPaginator, followNextCursor, type WithoutCursor } from "../pagination.js";
import type { KeyedRequestOptions, RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type { Input, TaxRate, TaxRateList } from "../types.js";

export type TaxRateCreateParams = Input<typeof taxRateCreate>;
export type TaxRateUpdateParams = Input<typeof taxRateUpdate>;
export type TaxRateListParams = Input<typeof taxRateListQuery>;

export interface TaxRatesApi {
  /** Creates a rate; `code` must be unique in the account (ConflictError otherwise). Keyed. */
  create(input: TaxRateCreateParams, options?: KeyedRequestOptions): Promise<TaxRate>;
  /** By service id or, failing that, by code. */
  get(taxRateId: string, options?: RequestOptions): Promise<TaxRate>;
  /** Changes the name only: a rate that priced an invoice never changes. Safe. */
  update(taxRateId: string, changes: TaxRateUpdateParams, options?: RequestOptions): Promise<TaxRate>;
  /** Archives the rate: no invoice priced afterwards uses it. Safe: archiving again changes nothing. */
  archive(taxRateId: string, options?: RequestOptions): Promise<TaxRate>;
  /** One page: `{ taxRates, total, hasMore, nextCursor }`, archived rates included. */
  list(params?: TaxRateListParams, options?: RequestOptions): Promise<TaxRateList>;
  listAll(params?: WithoutCursor<TaxRateListParams>, options?: RequestOptions): AutoPaginator<TaxRateList, TaxRate>;
}

export function taxRatesResource({ trpc, call }: Transport): TaxRatesApi {
  const list: TaxRatesApi["list"] = (params = {}, options) =>
    call("safe", (attempt) => trpc.taxRates.list.query(params, attempt), options);
  return {
    create: (input, options) =>
      call("keyed", (attempt) => trpc.taxRates.create.mutate(input, attempt), options).then((r) => r.taxRate),
    get: (taxRateId, options) =>
      call("safe", (attempt) => trpc.taxRates.get.query({ taxRateId }, attempt), options).then((r) => r.taxRate),
    update: (taxRateId, changes, options) =>
      call("safe", (attempt) => trpc.taxRates.update.mutate({ ...changes, taxRateId }, attempt), options).then(
        (r) => r.taxRate,
      ),
    archive: (taxRateId, options) =>
      call("safe", (attempt) => trpc.taxRates.archive.mutate({ taxRateId }, attempt), options).then((r) => r.taxRate),
    list,
    listAll: (params = {}, options) =>
      new AutoPaginator(
        (cursor) => list({ limit: AUTO_PAGE_SIZE, ...params, cursor }, options),
        (page) => page.taxRates,
        followNextCursor,
      ),
  };
}
