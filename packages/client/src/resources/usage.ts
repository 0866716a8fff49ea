import type { UsageApi } from "../api.js";
import type { Transport } from "../transport.js";

export function usageResource({ trpc, call }: Transport): UsageApi {
  return {
    get: (params) => call((signal) => trpc.usage.get.query(params, { signal }), true).then(({ usage }) => usage),
  };
}
