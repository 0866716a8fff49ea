import type { creditNoteCreate, creditNoteListQuery } from "@billing/shared";
import { AUTO_PAGE_SIZE, AutoPaginator, followNextCursor, type WithoutCursor } from "../pagination.js";
import type { KeyedRequestOptions, RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type { CreditNote, CreditNoteList, Input } from "../types.js";

export type CreditNoteCreateParams = Input<typeof creditNoteCreate>;
export type CreditNoteListParams = Input<typeof creditNoteListQuery>;

export interface CreditNotesApi {
  /**
   * Credits part of a FINALIZED invoice back: `OFFSET` lowers its `amountDue`, `CREDITS` grants the amount to the
   * customer. ConflictError when the invoice is not FINALIZED or the amount passes the refund's limit. Keyed.
   */
  create(input: CreditNoteCreateParams, options?: KeyedRequestOptions): Promise<CreditNote>;
  get(creditNoteId: string, options?: RequestOptions): Promise<CreditNote>;
  /** One page, optionally of one invoice's or one customer's credit notes, oldest first. */
  list(params?: CreditNoteListParams, options?: RequestOptions): Promise<CreditNoteList>;
  listAll(
    params?: WithoutCursor<CreditNoteListParams>,
    options?: RequestOptions,
  ): AutoPaginator<CreditNoteList, CreditNote>;
}

export function creditNotesResource({ trpc, call }: Transport): CreditNotesApi {
  const list: CreditNotesApi["list"] = (params = {}, options) =>
    call("safe", (attempt) => trpc.creditNotes.list.query(params, attempt), options);
  return {
    create: (input, options) =>
      call("keyed", (attempt) => trpc.creditNotes.create.mutate(input, attempt), options).then((r) => r.creditNote),
    get: (creditNoteId, options) =>
      call("safe", (attempt) => trpc.creditNotes.get.query({ creditNoteId }, attempt), options).then(
        (r) => r.creditNote,
      ),
    list,
    listAll: (params = {}, options) =>
      new AutoPaginator(
        (cursor) => list({ limit: AUTO_PAGE_SIZE, ...params, cursor }, options),
        (page) => page.creditNotes,
        followNextCursor,
      ),
  };
}
