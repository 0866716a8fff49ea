import type { CreditsApi } from "../api.js";
import { AUTO_PAGE_SIZE, AutoPaginator, afterLastItem } from "../pagination.js";
import type { Transport } from "../transport.js";

export function creditsResource({ trpc, call, callOnce }: Transport): CreditsApi {
  const list: CreditsApi["list"] = (params) => call((signal) => trpc.credits.list.query(params, { signal }), true);
  return {
    // Keyed: a retry gets the first grant's answer instead of granting twice.
    grant: (input) => callOnce((options) => trpc.credits.grant.mutate(input, options)).then(({ entry }) => entry),
    // Keyed: a retry after a lost answer gets the Void entry instead of a 409 for a void that happened.
    void: (entryId) => callOnce((options) => trpc.credits.void.mutate({ entryId }, options)).then(({ entry }) => entry),
    balance: (params) => call((signal) => trpc.credits.balance.query(params, { signal }), true),
    list,
    listAll: (params) => {
      const limit = params.limit ?? AUTO_PAGE_SIZE;
      return new AutoPaginator((cursor) => list({ ...params, limit, cursor }), (page) => page.entries, (page) => afterLastItem(page.entries, limit));
    },
  };
}
