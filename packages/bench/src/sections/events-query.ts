import { seededRandom } from "@billing/shared";
import type { Document, Filter } from "mongodb";
import type { BenchContext } from "../context.js";
import { EVENT_NAMES, EVENTS_PER_HOUR, eventName, hourWindow } from "../data.js";
import { describePlan, type PlanSummary } from "../plan.js";
import { formatCount, progress } from "../progress.js";
import { interleavedRounds, type LatencySummary, ratio, summarize } from "../stats.js";

const PAGE = 100;

export interface QueryVariantResult {
  api: LatencySummary;
  raw: LatencySummary;
  /** API p50 / raw p50 of the same query. */
  ratio: number;
  plan: PlanSummary;
}

export interface EventsQueryCheckpoint {
  storedEvents: number;
  /** `GET /events` for a one-hour window (1,000 events), first page of 100. */
  window: QueryVariantResult;
  /** The same with `eventName` (100 events of that name in the hour). */
  windowAndName: QueryVariantResult;
}

/**
 * Times `GET /events` for a one-hour window, with and without `eventName`, against the same query through the
 * raw driver (the filter, order and limit the events repository sends), on the events stored so far.
 */
export async function benchEventQueries(context: BenchContext, stored: number): Promise<EventsQueryCheckpoint> {
  const events = context.db.collection("events");
  const hours = Math.floor(stored / EVENTS_PER_HOUR);
  const random = seededRandom(stored);
  let window = hourWindow(0);
  let name = eventName(0);

  const rawFilter = (byName: boolean): Filter<Document> => ({
    accountId: context.api.accountId,
    timestamp: { $gte: new Date(window.startTime), $lt: new Date(window.endTime) },
    ...(byName && { name }),
  });
  const rawQuery = (byName: boolean) => events.find(rawFilter(byName)).sort({ timestamp: 1, _id: 1 }).limit(PAGE);
  const apiQuery = async (byName: boolean) => {
    const query = new URLSearchParams({ ...window, limit: String(PAGE), ...(byName && { eventName: name }) });
    const { events: page } = await context.api.call<{ events: unknown[] }>("GET", `/events?${query}`);
    if (page.length !== PAGE) throw new Error(`GET /events returned ${page.length} events, expected ${PAGE}`);
  };

  const samples = await interleavedRounds(
    {
      apiWindow: () => {
        // Each round asks about another hour (and name), the same for all four series.
        window = hourWindow(Math.floor(random() * hours));
        name = eventName(Math.floor(random() * EVENT_NAMES));
        return apiQuery(false);
      },
      rawWindow: () => rawQuery(false).toArray(),
      apiWindowAndName: () => apiQuery(true),
      rawWindowAndName: () => rawQuery(true).toArray(),
    },
    { seconds: context.options.sizes.seriesSeconds * 2 },
    (rounds) => progress(`GET /events at ${formatCount(stored)} stored events: round ${rounds}`),
  );

  const variant = async (api: number[], raw: number[], byName: boolean): Promise<QueryVariantResult> => ({
    api: summarize(api),
    raw: summarize(raw),
    ratio: ratio(summarize(api).p50Ms, summarize(raw).p50Ms),
    plan: describePlan(await rawQuery(byName).explain("executionStats"), stored),
  });
  return {
    storedEvents: stored,
    window: await variant(samples.apiWindow, samples.rawWindow, false),
    windowAndName: await variant(samples.apiWindowAndName, samples.rawWindowAndName, true),
  };
}
