import type { auditLogQuery } from "@billing/shared";
import { AUTO_PAGE_SIZE, AutoPaginator, followNextCursor, type WithoutCursor } from "../pagination.js";
import type { RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type { AuditEntry, AuditLogPage, Input } from "../types.js";

export type AuditLogListParams = Input<typeof auditLogQuery>;

export interface AuditLogApi {
  /** One page, newest first (`{ entries, hasMore, nextCursor }`); filters: resourceId, actor, action, from, to. */
  list(params?: AuditLogListParams, options?: RequestOptions): Promise<AuditLogPage>;
  listAll(
    params?: WithoutCursor<AuditLogListParams>,
    options?: RequestOptions,
  ): AutoPaginator<AuditLogPage, AuditEntry>;
}

export function auditLogResource({ trpc, call }: Transport): AuditLogApi {
  const list: AuditLogApi["list"] = (params = {}, options) =>
    call("safe", (attempt) => trpc.auditLog.list.query(params, attempt), options);
  return {
    list,
    listAll: (params = {}, options) =>
      new AutoPaginator(
        (cursor) => list({ limit: AUTO_PAGE_SIZE, ...params, cursor }, options),
        (page) => page.entries,
        followNextCursor,
      ),
  };
}
