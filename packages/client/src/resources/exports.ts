import type { exportCreate } from "@billing/shared";
import type { KeyedRequestOptions, RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type { Export, Input } from "../types.js";

export type ExportCreateParams = Input<typeof exportCreate>;

export interface ExportsApi {
  /**
   * Asks for an export of `kind` over [from, to) as `csv` or `ndjson`: answered PENDING at once, written in the
   * background; poll `get` until COMPLETED, then `file`. Keyed.
   */
  create(input: ExportCreateParams, options?: KeyedRequestOptions): Promise<Export>;
  /** The export: its status and the rows written. */
  get(exportId: string, options?: RequestOptions): Promise<Export>;
  /** The COMPLETED export's file as text (CSV with a byte order mark, or NDJSON); ConflictError before. */
  file(exportId: string, options?: RequestOptions): Promise<string>;
}

export function exportsResource({ trpc, call, getRaw }: Transport): ExportsApi {
  return {
    create: (input, options) =>
      call("keyed", (attempt) => trpc.exports.create.mutate(input, attempt), options).then((r) => r.export),
    get: (exportId, options) =>
      call("safe", (attempt) => trpc.exports.get.query({ exportId }, attempt), options).then((r) => r.export),
    file: (exportId, options) =>
      call(
        "safe",
        async (attempt) => (await getRaw(`/exports/${encodeURIComponent(exportId)}/file`, attempt)).text(),
        options,
      ),
  };
}
