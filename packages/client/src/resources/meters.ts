import type { MetersApi } from "../api.js";
import { AUTO_PAGE_SIZE, AutoPaginator, followNextCursor } from "../pagination.js";
import type { Transport } from "../transport.js";

export function metersResource({ trpc, call, callOnce }: Transport): MetersApi {
  const list: MetersApi["list"] = (params = {}) => call((signal) => trpc.meters.list.query(params, { signal }), true);
  return {
    create: (input) => callOnce((options) => trpc.meters.create.mutate(input, options)).then(({ meter }) => meter),
    get: (meterId) => call((signal) => trpc.meters.get.query({ meterId }, { signal }), true).then(({ meter }) => meter),
    // Retried: setting the same display name again changes nothing.
    update: (meterId, changes) => call((signal) => trpc.meters.update.mutate({ ...changes, meterId }, { signal }), true).then(({ meter }) => meter),
    list,
    listAll: (params = {}) => new AutoPaginator((cursor) => list({ limit: AUTO_PAGE_SIZE, ...params, cursor }), (page) => page.meters, followNextCursor),
  };
}
