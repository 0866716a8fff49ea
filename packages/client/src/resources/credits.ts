import type { CreditLedgerEntry, CreditList, creditGrant, creditListQuery } from "@billing/shared";
import type { z } from "zod";
import { AUTO_PAGE_SIZE, AutoPaginator, afterLastItem, type WithoutCursor } from "../pagination.js";
import type { KeyedRequestOptions, RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";

export type CreditGrantParams = z.input<typeof creditGrant>;
export type CreditListParams = z.input<typeof creditListQuery>;

export interface CreditsApi {
  /** Grants credits to a customer. Keyed: granted once. */
  grant(input: CreditGrantParams, options?: KeyedRequestOptions): Promise<CreditLedgerEntry>;
  /** One page of a customer's ledger, oldest first: `{ entries }`; the next cursor is the last entry's id. */
  list(params: CreditListParams, options?: RequestOptions): Promise<CreditList>;
  listAll(
    params: WithoutCursor<CreditListParams>,
    options?: RequestOptions,
  ): AutoPaginator<CreditList, CreditLedgerEntry>;
}

export function creditsResource({ trpc, call }: Transport): CreditsApi {
  const list: CreditsApi["list"] = (params, options) =>
    call("safe", (attempt) => trpc.credits.list.query(params, attempt), options);
  return {
    // Keyed: a retry gets the first grant's answer instead of granting twice.
    grant: (input, options) =>
      call("keyed", (attempt) => trpc.credits.grant.mutate(input, attempt), options).then((r) => r.entry),
    list,
    listAll: (params, options) => {
      const limit = params.limit ?? AUTO_PAGE_SIZE;
      return new AutoPaginator(
        (cursor) => list({ ...params, limit, cursor }, options),
        (page) => page.entries,
        (page) => afterLastItem(page.entries, limit),
      );
    },
  };
}
