import type { backfillCreate, backfillListQuery } from "@billing/shared";
import type { KeyedRequestOptions, RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type { Backfill, BackfillList, Input } from "../types.js";

export type BackfillCreateParams = Input<typeof backfillCreate>;
export type BackfillListParams = Input<typeof backfillListQuery>;

export interface BackfillsApi {
  /**
   * Opens a backfill of a meter's window (`ADD` or `REPLACE`, up to 1000 events): answered PENDING at once, applied in
   * the background; poll `get` until COMPLETED (or FAILED). Without `events`, OPEN: send them with `events.ingest`
   * and its `backfillId`, then `commit`. Keyed.
   */
  create(input: BackfillCreateParams, options?: KeyedRequestOptions): Promise<Backfill>;
  /**
   * Commits an OPEN backfill (opened by `create` without events; its events sent with `events.ingest` and its id):
   * answered PENDING at once, the events it held applied in the background; poll `get` until COMPLETED. Only an OPEN
   * backfill, once (else 409). Keyed.
   */
  commit(backfillId: string, options?: KeyedRequestOptions): Promise<Backfill>;
  /**
   * Reverts a COMPLETED backfill (else 409): answered REVERTING at once; in the background its events are voided and
   * the events it replaced counted again; poll `get` until REVERTED. Once per backfill. Keyed.
   */
  revert(backfillId: string, options?: KeyedRequestOptions): Promise<Backfill>;
  /** The backfill: its status and counts. */
  get(backfillId: string, options?: RequestOptions): Promise<Backfill>;
  /** One page of the account's backfills, newest first: `{ backfills }`. */
  list(params?: BackfillListParams, options?: RequestOptions): Promise<BackfillList>;
}

export function backfillsResource({ trpc, call }: Transport): BackfillsApi {
  return {
    create: (input, options) =>
      call("keyed", (attempt) => trpc.backfills.create.mutate(input, attempt), options).then((r) => r.backfill),
    commit: (backfillId, options) =>
      call("keyed", (attempt) => trpc.backfills.commit.mutate({ backfillId }, attempt), options).then(
        (r) => r.backfill,
      ),
    revert: (backfillId, options) =>
      call("keyed", (attempt) => trpc.backfills.revert.mutate({ backfillId }, attempt), options).then(
        (r) => r.backfill,
      ),
    get: (backfillId, options) =>
      call("safe", (attempt) => trpc.backfills.get.query({ backfillId }, attempt), options).then((r) => r.backfill),
    list: (params = {}, options) => call("safe", (attempt) => trpc.backfills.list.query(params, attempt), options),
  };
}
