import { randomUUID } from "node:crypto";
import { SealedSecretError } from "../auth/secret-box.js";
import { attemptResult, type RetrySchedule } from "../domain/webhooks/retry-schedule.js";
import { signedHeaders } from "../domain/webhooks/signing.js";
import type { Logger } from "../logger.js";
import type { Repositories } from "../repositories/index.js";
import type { DeliveryDoc } from "../repositories/webhook-deliveries.js";
import { postWebhook } from "./webhook-sender.js";
import { sweepChanges } from "./webhook-sweep.js";

export interface WebhookSettings {
  /** Delays of the retries after the first attempt, in seconds (WEBHOOK_RETRY_SCHEDULE). */
  retrySchedule: RetrySchedule;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: http, and private, loopback and link-local addresses. */
  allowPrivateNetworks: boolean;
  /** How often the worker looks for attempts that are due. */
  pollIntervalMs: number;
  /** How often it records the messages of changes whose request stopped before recording them. */
  sweepIntervalMs: number;
  /** How long an endpoint has to answer an attempt. */
  timeoutMs: number;
}

export const DEFAULT_WEBHOOK_TIMING = { pollIntervalMs: 1_000, sweepIntervalMs: 60_000, timeoutMs: 15_000 };

/** Attempts one worker makes at once: a slow endpoint holds one of them, never the API. */
const MAX_IN_FLIGHT = 16;
/**
 * A claim older than the timeout plus this, and unfinished, belongs to a worker that stopped without giving it back.
 */
const ABANDONED_AFTER_MARGIN_MS = 30_000;

export interface DeliveryWorker {
  /** Stops taking attempts, cuts those in flight and gives them back (sent again later, with the same id). */
  close(): Promise<void>;
}

/**
 * The delivery worker of one server instance. Every instance runs one; they share the work through the database:
 * an attempt is made by the worker whose claim insert wins (see webhook-attempts.ts).
 */
export function startDeliveryWorker(
  repositories: Repositories,
  settings: WebhookSettings,
  log: Logger,
): DeliveryWorker {
  const {
    webhookDeliveries: deliveries,
    webhookAttempts: attempts,
    webhookEndpoints: endpoints,
    webhookMessages: messages,
  } = repositories;
  const workerId = randomUUID();
  const stop = new AbortController();
  const inFlight = new Map<string, Promise<void>>();
  const timers = new Set<NodeJS.Timeout>();
  const tasksRunning = new Set<Promise<void>>();

  /** The endpoint's signing secrets, or why one does not open. */
  async function signingSecrets(
    endpointId: string,
    now: Date,
  ): Promise<{ opened: string[]; unopened?: never } | { unopened: string }> {
    try {
      return { opened: await endpoints.signingSecrets(endpointId, now) };
    } catch (error) {
      if (!(error instanceof SealedSecretError)) throw error;
      log.error({ endpointId, err: error }, "a webhook signing secret does not open");
      return { unopened: error.message };
    }
  }

  /**
   * The attempt after the last one recorded: claimed, made, recorded, or given back unmade. Whether this worker held
   * it to the end (false when another worker's claim won, or a shutdown gave it back).
   */
  async function attempt(delivery: DeliveryDoc): Promise<boolean> {
    const deliveryId = delivery._id.toHexString();
    const number = delivery.attempts + 1;
    if (!(await attempts.claim(deliveryId, number, workerId))) {
      await takeOverIfAbandoned(delivery, number);
      return false;
    }
    const [target, message] = await Promise.all([
      endpoints.target(delivery.endpointId),
      messages.get(delivery.messageId),
    ]);
    if (!target || target.status === "DISABLED" || !message) {
      await deliveries.abandon(delivery._id);
      await attempts.release(deliveryId, number);
      return true;
    }
    const now = new Date();
    const secrets = await signingSecrets(delivery.endpointId, now);
    // A secret that does not open (its key left WEBHOOK_SECRET_KEYS) fails the attempt, visibly, and retries follow:
    // an operator who restores the key loses no message.
    const { statusCode, error } =
      secrets.unopened !== undefined
        ? { statusCode: null, error: secrets.unopened }
        : await postWebhook({
            url: target.url,
            body: message.payload,
            headers: signedHeaders(secrets.opened, message._id, Math.floor(now.getTime() / 1000), message.payload),
            timeoutMs: settings.timeoutMs,
            allowPrivateNetworks: settings.allowPrivateNetworks,
            stop: stop.signal,
          });
    // Cut by a shutdown before any answer: not made. Given back, it is sent again later with the same webhook-id.
    if (statusCode === null && stop.signal.aborted) {
      await attempts.release(deliveryId, number);
      return false;
    }
    const result = attemptResult(
      settings.retrySchedule,
      { attempt: number, resendAttempt: delivery.resendAttempt },
      statusCode,
      new Date(),
    );
    // Disabled first: once the delivery reads FAILED, the endpoint reads DISABLED.
    if (statusCode === 410) await endpoints.disable(delivery.endpointId);
    await deliveries.recordAttempt(delivery._id, number, result, error);
    await attempts.finish(deliveryId, number, { statusCode, error });
    // The operator's view of what the account sees in its deliveries: a message its endpoint will not get.
    if (result.status === "FAILED") {
      const { endpointId, accountId } = delivery;
      const outcome = { deliveryId, endpointId, accountId, attempts: number, lastStatusCode: statusCode, error };
      log.warn(outcome, "webhook delivery failed: no attempt left (it can still be resent)");
    }
    return true;
  }

  /**
   * The attempt is claimed by another worker. If that worker stopped without a graceful shutdown (its claim is old
   * and unfinished), the attempt counts as made without an answer, and the next one follows the schedule.
   */
  async function takeOverIfAbandoned(delivery: DeliveryDoc, number: number) {
    const claim = await attempts.get(delivery._id.toHexString(), number);
    const now = new Date();
    if (!claim || now.getTime() - claim.claimedAt.getTime() < settings.timeoutMs + ABANDONED_AFTER_MARGIN_MS) return;
    const result = attemptResult(
      settings.retrySchedule,
      { attempt: number, resendAttempt: delivery.resendAttempt },
      claim.statusCode,
      now,
    );
    const error = claim.statusCode === null ? (claim.error ?? "the worker making the attempt stopped") : null;
    await deliveries.recordAttempt(delivery._id, number, result, error);
  }

  /** Whether the last look found more due than it could start: then each attempt made looks again at once. */
  let backlog = false;

  function start(delivery: DeliveryDoc) {
    const key = delivery._id.toHexString();
    const run = attempt(delivery)
      .then((made) => {
        // Only after an attempt made: one lost to another worker's claim would otherwise look again in a loop.
        if (made && backlog) poll.soon();
      })
      .catch((error) => log.error({ err: error, deliveryId: key }, "webhook attempt failed"))
      .finally(() => inFlight.delete(key));
    inFlight.set(key, run);
  }

  /**
   * Runs `task` every `intervalMs`, one run at a time, until the worker stops; `soon()` runs it at once instead (or
   * right after the run in progress).
   */
  function every(intervalMs: number, task: () => Promise<void>, what: string) {
    let timer: NodeJS.Timeout | undefined;
    let running = false;
    let again = false;
    const schedule = (delayMs: number) => {
      timer = setTimeout(() => {
        if (timer) timers.delete(timer);
        timer = undefined;
        running = true;
        const current = task()
          .catch((error) => log.error({ err: error }, what))
          .finally(() => {
            tasksRunning.delete(current);
            running = false;
            if (!stop.signal.aborted) schedule(again ? 0 : intervalMs);
            again = false;
          });
        tasksRunning.add(current);
      }, delayMs);
      timers.add(timer);
    };
    schedule(0);
    return {
      soon() {
        if (stop.signal.aborted) return;
        if (running) {
          again = true;
          return;
        }
        if (timer) {
          clearTimeout(timer);
          timers.delete(timer);
        }
        schedule(0);
      },
    };
  }

  const poll = every(
    settings.pollIntervalMs,
    async () => {
      const page = MAX_IN_FLIGHT * 2;
      const due = inFlight.size >= MAX_IN_FLIGHT ? [] : await deliveries.due(new Date(), page);
      let left = 0;
      for (const delivery of due) {
        if (inFlight.has(delivery._id.toHexString())) continue;
        if (stop.signal.aborted || inFlight.size >= MAX_IN_FLIGHT) left += 1;
        else start(delivery);
      }
      // More due than started (or no room to look): the attempts now running look again as each ends.
      backlog = inFlight.size >= MAX_IN_FLIGHT || left > 0 || due.length === page;
    },
    "could not look for due webhook attempts",
  );
  every(settings.sweepIntervalMs, () => sweepChanges(repositories), "the webhook sweep failed");

  return {
    async close() {
      stop.abort();
      for (const timer of timers) clearTimeout(timer);
      // A poll in progress may still start attempts (they stop at once): wait for it before the attempts.
      await Promise.allSettled(tasksRunning);
      await Promise.allSettled(inFlight.values());
    },
  };
}
