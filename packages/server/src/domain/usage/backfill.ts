import type { EventInput } from "@billing/shared";

/** What a backfill's events must fit: the meter's event name, the window [from, to), the customer's aliases. */
export interface BackfillScope {
  eventName: string;
  from: Date;
  to: Date;
  /** The customer's event aliases; null: any customer's. */
  aliases: string[] | null;
}

/** Events a worker step stores at once (one `POST /events` batch's work, a quarter of its largest). */
export const BACKFILL_EVENTS_PER_STEP = 250;
/** Events of the window a REPLACE step reads (and voids, those stored before the backfill) at once. */
export const BACKFILL_REPLACED_PER_STEP = 100;

/** Each event outside the backfill's scope, as a 400's issues naming its field (`events.3.timestamp`). */
export function backfillEventIssues(events: EventInput[], scope: BackfillScope) {
  return events.flatMap((event, index) => {
    const at = new Date(event.timestamp).getTime();
    return [
      ...(event.name === scope.eventName
        ? []
        : [{ path: `events.${index}.name`, message: `is not ${scope.eventName}` }]),
      ...(at >= scope.from.getTime() && at < scope.to.getTime()
        ? []
        : [{ path: `events.${index}.timestamp`, message: "is outside [from, to)" }]),
      ...(scope.aliases === null || scope.aliases.includes(event.customerAlias)
        ? []
        : [{ path: `events.${index}.customerAlias`, message: "is not one of the customer's aliases" }]),
    ];
  });
}

/** The page of a backfill's events a step stores: the `page`th of BACKFILL_EVENTS_PER_STEP (empty past the last). */
export const backfillPage = <T>(events: T[], page: number) =>
  events.slice(page * BACKFILL_EVENTS_PER_STEP, (page + 1) * BACKFILL_EVENTS_PER_STEP);

/** The reason every void of a REPLACE backfill carries: names the backfill (GET /events/{eventId} shows it). */
export const replacedReason = (backfillId: string) => `Replaced by backfill ${backfillId}`;

/** The reason of its revert: on the voids of the backfill's own events, and on the restores of those it replaced. */
export const revertedReason = (backfillId: string) => `Reverted backfill ${backfillId}`;
