import type { CreditLedgerEntry } from "@billing/shared";
import { runsOnClockOf, testClockOf } from "../billing-clock.js";
import { type ChangeEvent, creditEventsOf, messageIdOf, occurredAt, payloadOf } from "../domain/webhooks/events.js";
import type { Logger } from "../logger.js";
import type { Repositories } from "../repositories/index.js";
import type { MessageDoc } from "../repositories/webhook-messages.js";

/**
 * Records a change's message and opens its deliveries: one per enabled endpoint of the account that takes the event's
 * type. Every write is keyed by the change (the message id is derived from it; a delivery is unique per message and
 * endpoint), so running it again, from the request or from the sweep, adds nothing. Delivery is the worker's job.
 */
export async function recordChange(repositories: Repositories, accountId: string, event: ChangeEvent): Promise<void> {
  const at = new Date(occurredAt(event));
  const endpointIds = await repositories.webhookEndpoints.subscribers(accountId, event.type, at);
  if (endpointIds.length === 0) return;
  const messageId = messageIdOf(accountId, event);
  if ((await repositories.webhookMessages.get(messageId))?.fannedOutAt) return;
  await repositories.webhookMessages.record({
    _id: messageId,
    accountId,
    type: event.type,
    payload: payloadOf(event, (await testClockTimeOf(repositories, accountId))?.toISOString()),
    occurredAt: at,
    createdAt: new Date(),
    fannedOutAt: null,
  });
  for (const endpointId of endpointIds) {
    await repositories.webhookDeliveries.open({ accountId, endpointId, messageId, eventType: event.type });
  }
  await repositories.webhookMessages.markFannedOut(messageId);
}

/**
 * A test account's clock's time when it records a message (its body's `timestamp`); undefined for a live account. The
 * account's own work knows it; the sweep, recording for any account, reads it.
 */
async function testClockTimeOf(repositories: Repositories, accountId: string): Promise<Date | undefined> {
  if (runsOnClockOf(accountId)) return testClockOf(accountId);
  return (await repositories.accounts.testClockOf(accountId))?.at;
}

/**
 * The one call after each change that has an event. It never fails the call that made the change: the change stands
 * whatever happens here, and a message that could not be recorded is recorded by the sweep (see webhook-sweep.ts).
 */
export async function publishChange(
  repositories: Repositories,
  accountId: string,
  log: Logger,
  event: ChangeEvent,
): Promise<void> {
  try {
    await recordChange(repositories, accountId, event);
  } catch (error) {
    log.error(
      { err: error, accountId, eventType: event.type },
      "could not record a webhook message: the sweep will record it",
    );
  }
}

/**
 * Publishes the events of credit ledger entries a call wrote or found (`credit.granted`, `credit.expired`,
 * `credit.depleted`: see creditEventsOf), each entry once, as soon as the call has them: an expiration or a void that
 * empties the balance is announced by the request that wrote it, not a minute later by the sweep (which stays the
 * safety net, under the same message ids).
 */
export async function publishCreditEntries(
  repositories: Repositories,
  accountId: string,
  log: Logger,
  entries: readonly CreditLedgerEntry[],
): Promise<void> {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  for (const entry of byId.values()) {
    for (const event of creditEventsOf(entry)) await publishChange(repositories, accountId, log, event);
  }
}

/**
 * The repositories with publishChange's writes gathered instead of sent (a billing batch's announcements, one or two
 * per invoice), and `publish` to send them: the messages in one insert, their deliveries in one, the fan-out marks in
 * one — in recordChange's order, each keyed as its writes are. The look for an existing message is skipped: a batch
 * announces changes it has just made, and a repeat is a duplicate key, ignored. What fails is left to the sweep, as a
 * failed publishChange is.
 */
export function gatherPublications(repositories: Repositories, log: Logger) {
  const messages: MessageDoc[] = [];
  const deliveries: Parameters<Repositories["webhookDeliveries"]["openMany"]>[0] = [];
  return {
    repositories: {
      ...repositories,
      webhookMessages: {
        ...repositories.webhookMessages,
        get: async () => undefined,
        record: async (message: MessageDoc) => void messages.push(message),
        markFannedOut: async () => undefined,
      },
      webhookDeliveries: {
        ...repositories.webhookDeliveries,
        open: async (fields: (typeof deliveries)[number]) => void deliveries.push(fields),
      },
    } satisfies Repositories,
    async publish() {
      const gathered = messages.splice(0);
      const opening = deliveries.splice(0);
      try {
        const recorded = await repositories.webhookMessages.recordMany(gathered);
        await repositories.webhookDeliveries.openMany(opening.filter(({ messageId }) => recorded.has(messageId)));
        await repositories.webhookMessages.markManyFannedOut([...recorded]);
      } catch (error) {
        log.error({ err: error, messages: gathered.length }, "could not record webhook messages: the sweep will");
      }
    },
  };
}
