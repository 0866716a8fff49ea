import type { eventInput, eventQuery } from "@billing/shared";
import { AUTO_PAGE_SIZE, AutoPaginator, afterLastItem, type WithoutCursor } from "../pagination.js";
import type { RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type { Event, EventExplanation, EventIngestResult, EventList, EventVoid, Input } from "../types.js";

export type EventInputParams = Input<typeof eventInput>;
export type EventQueryParams = Input<typeof eventQuery>;

/** `backfillId`: an OPEN backfill holds the batch apart (counted nowhere) until `backfills.commit`. */
export type EventIngestOptions = RequestOptions & { backfillId?: string };

export interface EventsApi {
  /** Up to 1000 events: `{ stored, duplicates }`. Safe: `ref` keeps a repeat from storing twice. */
  ingest(events: EventInputParams[], options?: EventIngestOptions): Promise<EventIngestResult>;
  /** One page of the events in [startTime, endTime), by timestamp: `{ events }`. */
  query(params: EventQueryParams, options?: RequestOptions): Promise<EventList>;
  queryAll(params: WithoutCursor<EventQueryParams>, options?: RequestOptions): AutoPaginator<EventList, Event>;
  /** The event and its attribution: its customer, and whether each meter of its name counts it, else why not. */
  explain(eventId: string, options?: RequestOptions): Promise<EventExplanation>;
  /**
   * Voids an event (`POST /events/{eventId}/void`): it stops counting from now on and is kept with who voided it and
   * why; an issued invoice is adjusted by the late-usage rule. Keyed: a retry replays the answer; a second void is 409.
   */
  void(eventId: string, reason: string, options?: RequestOptions): Promise<EventVoid>;
}

export function eventsResource({ trpc, call }: Transport): EventsApi {
  const query: EventsApi["query"] = (params, options) =>
    call("safe", (attempt) => trpc.events.query.query(params, attempt), options);
  return {
    // Safe: `ref` keeps a repeated batch from storing anything twice.
    ingest: (events, { backfillId, ...options } = {}) =>
      call(
        "safe",
        (attempt) => trpc.events.ingest.mutate({ events, ...(backfillId !== undefined && { backfillId }) }, attempt),
        options,
      ),
    query,
    explain: (eventId, options) => call("safe", (attempt) => trpc.events.explain.query({ eventId }, attempt), options),
    void: (eventId, reason, options) =>
      call("keyed", (attempt) => trpc.events.void.mutate({ eventId, reason }, attempt), options),
    queryAll: (params, options) => {
      const limit = params.limit ?? AUTO_PAGE_SIZE;
      return new AutoPaginator(
        (cursor) => query({ ...params, limit, cursor }, options),
        (page) => page.events,
        (page) => afterLastItem(page.events, limit),
      );
    },
  };
}
