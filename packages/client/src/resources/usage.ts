import type { usageQuery } from "@billing/shared";
import type { RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type { Input, Usage } from "../types.js";

export type UsageParams = Input<typeof usageQuery>;

export interface UsageApi {
  /** A customer's usage of a meter over UTC days [startDate, endDate), with its days and where each came from. */
  get(params: UsageParams, options?: RequestOptions): Promise<Usage>;
}

export function usageResource({ trpc, call }: Transport): UsageApi {
  return {
    get: (params, options) =>
      call("safe", (attempt) => trpc.usage.get.query(params, attempt), options).then((r) => r.usage),
  };
}
