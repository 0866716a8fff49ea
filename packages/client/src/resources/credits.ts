import type { CreditsApi } from "../api.js";
import { AUTO_PAGE_SIZE, AutoPaginator, afterLastItem } from "../pagination.js";
import type { Transport } from "../transport.js";

export function creditsResource({ trpc, call }: Transport): CreditsApi {
  const list: CreditsApi["list"] = (params) => call((signal) => trpc.credits.list.query(params, { signal }), true);
  return {
    // Never retried: a repeat would grant twice.
    grant: (input) => call((signal) => trpc.credits.grant.mutate(input, { signal }), false).then(({ entry }) => entry),
    list,
    listAll: (params) => {
      const limit = params.limit ?? AUTO_PAGE_SIZE;
      return new AutoPaginator((cursor) => list({ ...params, limit, cursor }), (page) => page.entries, (page) => afterLastItem(page.entries, limit));
    },
  };
}
