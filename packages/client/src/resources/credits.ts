import type { creditBalanceQuery, creditGrant, creditListQuery } from "@billing/shared";
import { AUTO_PAGE_SIZE, AutoPaginator, afterLastItem, type WithoutCursor } from "../pagination.js";
import type { KeyedRequestOptions, RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type { CreditBalance, CreditLedgerEntry, CreditList, Input, RecurringGrant } from "../types.js";

export type CreditGrantParams = Input<typeof creditGrant>;
export type CreditListParams = Input<typeof creditListQuery>;
export type CreditBalanceParams = Input<typeof creditBalanceQuery>;

export interface CreditsApi {
  /**
   * Grants credits to a customer, effective from `effectiveAt` (default now), expiring at `expiresAt` (after now;
   * default never), burning by `priority` (0..100, default 50, lower first). With `recurrence` (`every` months,
   * `count?`, `rollover?: { maxAmount }`) a grant is issued each period and the first period's entry is returned.
   * Keyed: granted once.
   */
  grant(input: CreditGrantParams, options?: KeyedRequestOptions): Promise<CreditLedgerEntry>;
  /**
   * Voids what is left of a grant (its `Grant` entry's id): the `Void` entry. ConflictError when nothing is left.
   * Keyed.
   */
  void(entryId: string, options?: KeyedRequestOptions): Promise<CreditLedgerEntry>;
  /**
   * Cancels a recurring grant, named by any of its `Grant` entries (the one `grant` returned): the periods started
   * stay, no later one is issued. The recurring grant, `lastPeriod` its last. Canceling again answers the same. Keyed.
   */
  cancelRecurrence(entryId: string, options?: KeyedRequestOptions): Promise<RecurringGrant>;
  /**
   * The customer's balance and the grants with money left, in burn order: `{ balance, currency, balances, grants }`
   * (`balance` in the account's default `currency`, `balances` per currency). Safe.
   */
  balance(params: CreditBalanceParams, options?: RequestOptions): Promise<CreditBalance>;
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
    // Keyed: a retry after a lost answer gets the Void entry instead of a 409 for a void that happened.
    void: (entryId, options) =>
      call("keyed", (attempt) => trpc.credits.void.mutate({ entryId }, attempt), options).then((r) => r.entry),
    cancelRecurrence: (entryId, options) =>
      call("keyed", (attempt) => trpc.credits.cancelRecurrence.mutate({ entryId }, attempt), options).then(
        (r) => r.recurringGrant,
      ),
    balance: (params, options) => call("safe", (attempt) => trpc.credits.balance.query(params, attempt), options),
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
