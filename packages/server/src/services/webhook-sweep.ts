import type { ChangedResource } from "../db/changed-since.js";
import { lifecycleEventsOf } from "../domain/contracts/lifecycle-events.js";
import { INVOICE_EVENTS, type InvoiceEventType } from "../domain/invoices/status.js";
import { type ChangeEvent, creditEventsOf, repeats } from "../domain/webhooks/events.js";
import { presentContract } from "../presenters/contracts.js";
import { correctionAdjustment, lateUsageAdjustments } from "../presenters/invoice-adjustments.js";
import { presentRecurringGrant } from "../presenters/recurring-grants.js";
import type { RecordedTransition } from "../repositories/contract-transitions.js";
import type { Repositories } from "../repositories/index.js";
import { type SubscribingEndpoint, subscribersAmong } from "../repositories/webhook-endpoints.js";
import { readContractIncludingDeleted } from "./contract-reads.js";
import { presentReservation } from "./reservation-chain.js";
import { recordChange } from "./webhook-events.js";

/** A change found by the sweep: its account, when it happened, and its events (none: a change with no event). */
interface Change {
  accountId: string;
  at: Date;
  events: ChangeEvent[];
}

type Source = (since: Date, limit: number) => Promise<Change[]>;

/**
 * The events of a resource read by its last change (creation or update): its creation when that falls in the window
 * read, its latest update when it has one. Both are keyed as the request keyed them, so the sweep adds nothing a
 * request recorded.
 */
function creationAndUpdate<Resource extends { createdAt: string; updatedAt: string }>(
  read: (since: Date, limit: number) => Promise<ChangedResource<Resource>[]>,
  eventsOf: (resource: Resource, created: boolean, updated: boolean) => ChangeEvent[],
): Source {
  return async (since, limit) =>
    (await read(since, limit)).map(({ accountId, at, resource }) => ({
      accountId,
      at,
      events: eventsOf(resource, new Date(resource.createdAt) >= since, resource.updatedAt !== resource.createdAt),
    }));
}

/** The events of resources read by the one change each has (a creation, a deletion). */
function oneChange<Resource>(
  read: (since: Date, limit: number) => Promise<ChangedResource<Resource>[]>,
  eventOf: (resource: Resource) => ChangeEvent | ChangeEvent[] | undefined,
): Source {
  return async (since, limit) =>
    (await read(since, limit)).map(({ accountId, at, resource }) => {
      const events = eventOf(resource) ?? [];
      return { accountId, at, events: Array.isArray(events) ? events : [events] };
    });
}

/**
 * The events of recorded lifecycle changes of contracts (renewed, expired, terminated, updated): the entries of one
 * change (one contract, one `recordedAt`) give its events by the rule the change published them by, with the contract
 * as it reads now. A change a later one superseded gives only its once-in-a-life events (expiry, termination, keyed
 * by the contract): its updates' messages were keyed by an `updatedAt` the contract no longer has.
 */
function contractChanges(repositories: Repositories): Source {
  const { contractTransitions } = repositories;
  return async (since, limit) => {
    const recorded = await contractTransitions.recordedSince(since, limit);
    const changeOf = ({ resource, at }: (typeof recorded)[number]) => `${resource.contractId}@${at.toISOString()}`;
    const entriesOf = new Map<string, RecordedTransition[]>();
    const lastIndexOf = new Map<string, number>();
    recorded.forEach((entry, index) => {
      entriesOf.set(changeOf(entry), [...(entriesOf.get(changeOf(entry)) ?? []), entry.resource]);
      lastIndexOf.set(changeOf(entry), index);
    });
    // One Change per entry read (the batch counts entries); a change's events go with its last entry read.
    const found: Change[] = [];
    for (const [index, entry] of recorded.entries()) {
      const { accountId, at, resource } = entry;
      const contract =
        lastIndexOf.get(changeOf(entry)) === index &&
        (await readContractIncludingDeleted(repositories, accountId, resource.contractId));
      if (!contract) {
        found.push({ accountId, at, events: [] });
        continue;
      }
      const current = contract.updatedAt === at.toISOString();
      const types = lifecycleEventsOf(entriesOf.get(changeOf(entry)) ?? []).filter((type) => current || !repeats(type));
      found.push({ accountId, at, events: types.map((type) => ({ type, data: presentContract(contract) })) });
    }
    return found;
  };
}

/**
 * The cancellations of recurring grants (one insert each): `credit.recurrence_canceled` with the recurring grant as
 * it reads now, keyed as the request keyed it (once per recurring grant), so a request that stopped after its insert
 * is announced and one that published adds nothing.
 */
function recurrenceCancellations({ creditRecurrences }: Repositories): Source {
  return async (since, limit) => {
    const stops = await creditRecurrences.canceledSince(since, limit);
    return Promise.all(
      stops.map(async ({ accountId, at, resource: stop }) => {
        const recurrence = await creditRecurrences.get(accountId, stop._id);
        const data = recurrence && presentRecurringGrant(recurrence, stop);
        return { accountId, at, events: data ? [{ type: "credit.recurrence_canceled" as const, data }] : [] };
      }),
    );
  };
}

/** The name of the sweep's mark for each event of an invoice's changes (stored: the names stay as they are). */
const INVOICE_EVENT_MARKS: Record<InvoiceEventType, string> = {
  "invoice.finalized": "invoiceFinalizations",
  "invoice.paid": "invoicePayments",
  "invoice.voided": "invoiceVoids",
};

/**
 * The events of invoices' changes as the invoice's machine declares them (domain/invoices/status.ts): each read by the
 * field of the invoice's life that dates it.
 */
function invoiceEventSources({ invoices }: Repositories): Record<string, Source> {
  const events = Object.entries(INVOICE_EVENTS) as [InvoiceEventType, (typeof INVOICE_EVENTS)[InvoiceEventType]][];
  return Object.fromEntries(
    events.map(([type, { datedBy }]) => [
      INVOICE_EVENT_MARKS[type],
      oneChange(
        (since, limit) => invoices.changedSince(datedBy, since, limit),
        (invoice): ChangeEvent[] => [
          { type, data: invoice },
          // A finalized invoice's LATE_USAGE lines adjusted earlier invoices (late usage): recovered with it.
          ...(type === "invoice.finalized" ? lateUsageAdjustments(invoice) : []).map((data) => ({
            type: "invoice.adjusted" as const,
            data,
          })),
        ],
      ),
    ]),
  );
}

/**
 * Where the sweep reads recent changes: each resource that has events, through its repository. Keyed by the name of
 * each source's mark; "invoices" is read last (tests wait on its mark for a finished sweep).
 */
function changeSources(repositories: Repositories, until: Date): Record<string, Source> {
  const { customers, meters, taxRates, contracts, credits, creditNotes, invoices, coupons, couponRedemptions } =
    repositories;
  return {
    customers: creationAndUpdate(customers.changedSince, (customer, created, updated) => [
      ...(created ? [{ type: "customer.created" as const, data: customer }] : []),
      ...(updated ? [{ type: "customer.updated" as const, data: customer }] : []),
    ]),
    meters: creationAndUpdate(meters.changedSince, (meter, created, updated) => [
      ...(created ? [{ type: "meter.created" as const, data: meter }] : []),
      ...(updated ? [{ type: "meter.updated" as const, data: meter }] : []),
    ]),
    taxRates: creationAndUpdate(taxRates.changedSince, (taxRate, created, updated) => [
      ...(created ? [{ type: "tax_rate.created" as const, data: taxRate }] : []),
      ...(updated ? [{ type: "tax_rate.updated" as const, data: taxRate }] : []),
    ]),
    couponCreations: oneChange(coupons.createdSince, (coupon) => ({ type: "coupon.created", data: coupon })),
    couponArchivals: oneChange(coupons.archivedSince, (coupon) => ({ type: "coupon.archived", data: coupon })),
    couponRedemptions: oneChange(couponRedemptions.createdSince, (redemption) => ({
      type: "coupon.redeemed",
      data: redemption,
    })),
    reservations: oneChange(repositories.reservations.createdSince, (slot) => ({
      type: "reservation.created",
      data: presentReservation(slot, undefined, slot.createdAt),
    })),
    reservationSettlements: oneChange(repositories.reservations.settledSince, ({ slot, claim }) => ({
      type: "reservation.settled",
      data: presentReservation(slot, claim, claim.settledAt),
    })),
    // No request makes an expiry: the sweep is its publisher, reading expiries up to `until` (a settlement is claimed
    // before its expiresAt, and `until` leaves the newest to a later sweep, so a claim being written is seen).
    reservationExpiries: async (since, limit) =>
      (await repositories.reservations.expiredSince(since, until, limit)).map(
        ({ accountId, at, resource, settled }) => ({
          accountId,
          at,
          events: settled ? [] : [{ type: "reservation.expired", data: presentReservation(resource, undefined, at) }],
        }),
      ),
    contractCreations: oneChange(
      (since, limit) => contracts.changedSince("createdAt", since, limit),
      (contract) => ({ type: "contract.created", data: presentContract(contract) }),
    ),
    contractChanges: contractChanges(repositories),
    contractDeletions: oneChange(
      (since, limit) => contracts.changedSince("deletedAt", since, limit),
      (contract) => ({ type: "contract.deleted", data: presentContract(contract) }),
    ),
    creditEntries: oneChange(credits.createdSince, creditEventsOf),
    recurrenceCancellations: recurrenceCancellations(repositories),
    creditNotes: oneChange(creditNotes.createdSince, (creditNote): ChangeEvent[] => {
      const adjustment = correctionAdjustment(creditNote);
      return [
        { type: "credit_note.created", data: creditNote },
        ...(adjustment ? [{ type: "invoice.adjusted" as const, data: adjustment }] : []),
      ];
    }),
    // A PROVIDER note's refund, by when it ended: refunded, or failed (refused, or failed after it was accepted).
    creditNoteRefunds: oneChange(creditNotes.refundSettledSince, (creditNote): ChangeEvent | undefined => {
      const status = creditNote.providerRefund?.status;
      if (status === "SUCCEEDED") return { type: "credit_note.refunded", data: creditNote };
      if (status === "FAILED") return { type: "credit_note.refund_failed", data: creditNote };
      return undefined;
    }),
    ...invoiceEventSources(repositories),
    invoices: oneChange(invoices.createdSince, (invoice) => ({ type: "invoice.created", data: invoice })),
  };
}

/**
 * The repositories with each account's enabled endpoints read once per sweep: the sweep reads every change of its
 * overlap again (a month-end's thousands), and recordChange asks for the subscribers of each. An endpoint enabled
 * meanwhile is seen by the next sweep, which reads the same changes again.
 */
function endpointsReadOncePerSweep(repositories: Repositories): Repositories {
  const { webhookEndpoints } = repositories;
  const enabled = new Map<string, Promise<SubscribingEndpoint[]>>();
  const enabledOf = (accountId: string) => {
    const read = enabled.get(accountId) ?? webhookEndpoints.enabled(accountId);
    enabled.set(accountId, read);
    return read;
  };
  return {
    ...repositories,
    webhookEndpoints: {
      ...webhookEndpoints,
      subscribers: async (accountId, type, occurredAt) =>
        subscribersAmong(await enabledOf(accountId), type, occurredAt),
    },
  };
}

/**
 * How far back of its mark each sweep reads again: a change is timestamped before it is written, so one written late
 * (a slow request) can carry a time the previous sweep had already passed.
 */
export const SWEEP_OVERLAP_MS = 5 * 60_000;
/** Changes read per source and sweep; a backlog (after a long stop) is worked through over several sweeps. */
const SWEEP_BATCH = 500;

/**
 * Records the message of every recent change that has none, or whose deliveries were not all opened: the request
 * that made the change stopped (a crash) or failed to record it. Each source is read from its mark (where the last
 * sweep got to, less the overlap), so a stop of any length loses nothing; idempotent, safe on every instance at once.
 * Changes younger than `minAgeMs` wait for a later sweep: their request may still be recording them.
 */
export async function sweepChanges(repositories: Repositories, now = new Date(), minAgeMs = 0): Promise<void> {
  const until = new Date(now.getTime() - minAgeMs);
  const recording = endpointsReadOncePerSweep(repositories);
  for (const [source, read] of Object.entries(changeSources(repositories, until))) {
    const mark = (await repositories.webhookMessages.sweepMark(source)) ?? until;
    const changes = await read(new Date(mark.getTime() - SWEEP_OVERLAP_MS), SWEEP_BATCH);
    for (const { accountId, at, events } of changes) {
      if (at > until) continue;
      for (const event of events) await recordChange(recording, accountId, event);
    }
    // A full batch may leave changes after its last one: the next sweep starts there.
    const last = changes.at(-1);
    const full = changes.length === SWEEP_BATCH && last && last.at < until;
    await repositories.webhookMessages.setSweepMark(
      source,
      full ? new Date(last.at.getTime() + SWEEP_OVERLAP_MS) : until,
    );
  }
}
