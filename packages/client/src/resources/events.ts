import type { EventsApi } from "../api.js";
import { AUTO_PAGE_SIZE, AutoPaginator, afterLastItem } from "../pagination.js";
import type { Transport } from "../transport.js";

export function eventsResource({ trpc, call }: Transport): EventsApi {
  const query: EventsApi["query"] = (params) => call((signal) => trpc.events.query.query(params, { signal }), true);
  return {
    // Retried: `ref` keeps a repeated batch from storing anything twice.
    ingest: (events) => call((signal) => trpc.events.ingest.mutate({ events }, { signal }), true),
    query,
    explain: (eventId) => call((signal) => trpc.events.explain.query({ eventId }, { signal }), true),
    queryAll: (params) => {
      const limit = params.limit ?? AUTO_PAGE_SIZE;
      return new AutoPaginator((cursor) => query({ ...params, limit, cursor }), (page) => page.events, (page) => afterLastItem(page.events, limit));
    },
  };
}
