import { AUTO_PAGE_SIZE, AutoPaginator, afterLastItem } from "../pagination.js";
import type { Transport } from "../transport.js";
import type { Inputs, Outputs, WithoutCursor } from "../types.js";

type Events = Inputs["events"];
type EventPage = Outputs["events"]["query"];

export function eventsResource({ trpc, call }: Transport) {
  const query = (params: Events["query"]) => call((signal) => trpc.events.query.query(params, { signal }), true);
  return {
    /**
     * Records up to 1000 usage events: `{ stored, duplicates }`. Retried on transient failures: `ref` makes a
     * repeated batch store nothing twice.
     */
    ingest: (events: Events["ingest"]["events"]) => call((signal) => trpc.events.ingest.mutate({ events }, { signal }), true),
    /** One page of the events in [startTime, endTime), by timestamp: `{ events }`. */
    query,
    /** Every event of the period: `for await (const event of client.events.queryAll({ startTime, endTime }))`. */
    queryAll: (params: WithoutCursor<Events["query"]>) => {
      const limit = params.limit ?? AUTO_PAGE_SIZE;
      return new AutoPaginator<EventPage, EventPage["events"][number]>(
        (cursor) => query({ ...params, limit, cursor }),
        (page) => page.events,
        (page) => afterLastItem(page.events, limit),
      );
    },
  };
}
