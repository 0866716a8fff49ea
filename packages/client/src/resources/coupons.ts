import type { couponCreate, couponListQuery } from "@billing/shared";
import { AUTO_PAGE_SIZE, AutoPaginator, followNextCursor, type WithoutCursor } from "../pagination.js";
import type { KeyedRequestOptions, RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type { Coupon, CouponList, CouponRedemption, Input } from "../types.js";

export type CouponCreateParams = Input<typeof couponCreate>;
export type CouponListParams = Input<typeof couponListQuery>;

export interface CouponsApi {
  /** Creates a coupon; `code` must be unique in the account (ConflictError otherwise). Keyed. */
  create(input: CouponCreateParams, options?: KeyedRequestOptions): Promise<Coupon>;
  /** Archives the coupon: redeemed no more; contracts that applied it keep it. Safe: again changes nothing. */
  archive(code: string, options?: RequestOptions): Promise<Coupon>;
  /**
   * Applies the coupon to a contract (ConflictError when archived, expired, used up, already applied or of another
   * currency). Keyed: a retry gets the first answer.
   */
  redeem(contractId: string, code: string, options?: KeyedRequestOptions): Promise<CouponRedemption>;
  /** The coupons applied to a contract, oldest first. */
  ofContract(contractId: string, options?: RequestOptions): Promise<CouponRedemption[]>;
  /** One page: `{ coupons, total, hasMore, nextCursor }`, archived coupons included. */
  list(params?: CouponListParams, options?: RequestOptions): Promise<CouponList>;
  listAll(params?: WithoutCursor<CouponListParams>, options?: RequestOptions): AutoPaginator<CouponList, Coupon>;
}

export function couponsResource({ trpc, call }: Transport): CouponsApi {
  const list: CouponsApi["list"] = (params = {}, options) =>
    call("safe", (attempt) => trpc.coupons.list.query(params, attempt), options);
  return {
    create: (input, options) =>
      call("keyed", (attempt) => trpc.coupons.create.mutate(input, attempt), options).then((r) => r.coupon),
    archive: (code, options) =>
      call("safe", (attempt) => trpc.coupons.archive.mutate({ code }, attempt), options).then((r) => r.coupon),
    redeem: (contractId, code, options) =>
      call("keyed", (attempt) => trpc.coupons.redeem.mutate({ contractId, code }, attempt), options).then(
        (r) => r.redemption,
      ),
    ofContract: (contractId, options) =>
      call("safe", (attempt) => trpc.coupons.ofContract.query({ contractId }, attempt), options).then(
        (r) => r.redemptions,
      ),
    list,
    listAll: (params = {}, options) =>
      new AutoPaginator(
        (cursor) => list({ limit: AUTO_PAGE_SIZE, ...params, cursor }, options),
        (page) => page.coupons,
        followNextCursor,
      ),
  };
}
