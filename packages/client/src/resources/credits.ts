import { AUTO_PAGE_SIZE, AutoPaginator, afterLastItem } from "../pagination.js";
import type { Transport } from "../transport.js";
import type { Inputs, Outputs, WithoutCursor } from "../types.js";

type Credits = Inputs["credits"];
type EntryPage = Outputs["credits"]["list"];

export function creditsResource({ trpc, call }: Transport) {
  const list = (params: Credits["list"]) => call((signal) => trpc.credits.list.query(params, { signal }), true);
  return {
    /** Grants credits to a customer. Never retried: a repeat would grant twice. */
    grant: (input: Credits["grant"]) => call((signal) => trpc.credits.grant.mutate(input, { signal }), false).then(({ entry }) => entry),
    /** One page of a customer's ledger, oldest first: `{ entries }`; the next page's cursor is the last entry's id. */
    list,
    listAll: (params: WithoutCursor<Credits["list"]>) => {
      const limit = params.limit ?? AUTO_PAGE_SIZE;
      return new AutoPaginator<EntryPage, EntryPage["entries"][number]>(
        (cursor) => list({ ...params, limit, cursor }),
        (page) => page.entries,
        (page) => afterLastItem(page.entries, limit),
      );
    },
  };
}
