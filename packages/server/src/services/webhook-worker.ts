import { randomUUID } from "node:crypto";
import { SealedSecretError } from "../auth/secret-box.js";
import { type AttemptResult, attemptResult, type RetrySchedule } from "../domain/webhooks/retry-schedule.js";
import { signedHeaders } from "../domain/webhooks/signing.js";
import type { Logger } from "../logger.js";
import type { MeasuredTask, ServiceMetrics } from "../observability/metrics.js";
import { asWebhookWork } from "../observability/work-origin.js";
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
  /**
   * How old a change must be before the sweep records it: a younger one is left to the request that made it, which
   * records it as it ends (an invoice created and finalized in one step is announced finalized, never as the draft
   * a sweep could read between the two writes).
   */
  sweepMinAgeMs: number;
  /** How long an endpoint has to answer an attempt. */
  timeoutMs: number;
}

export const DEFAULT_WEBHOOK_TIMING = {
  pollIntervalMs: 1_000,
  sweepIntervalMs: 60_000,
  sweepMinAgeMs: 30_000,
  timeoutMs: 15_000,
};

/** Attempts one worker makes at once: a slow endpoint holds one of them, never the API. */
const MAX_IN_FLIGHT = 16;
/**
 * A claim older than the timeout plus this, and unfinished, belongs to a worker that stopped without giving it back.
 */
const ABANDONED_AFTER_MARGIN_MS = 30_000;

export interface DeliveryWorker {
  /** Whether the worker still runs and its polls keep ending (each may fail: the database check tells why). */
  alive(now: Date): boolean;
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
  metrics: ServiceMetrics,
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

  /**
   * What the attempts of one poll's page read and write, once for all of them (a few commands per page, not four per
   * attempt): their claims in one insert (each still decided by its own `_id`), their messages in one read, and each
   * endpoint's target and signing secrets once. An endpoint disabled or a secret rotated after the poll counts from
   * the next poll on, a page's attempts later (a 410 at once, here too). Every attempt of the page is started as it is
   * read (poll below), so no claim is made for an attempt that is not.
   */
  function pageReads(page: DeliveryDoc[], now: Date) {
    let claimsMade: Promise<Set<string>> | undefined;
    const claimed = (deliveryId: string) => {
      claimsMade ??= attempts.claimMany(
        page.map(({ _id, attempts }) => ({ deliveryId: _id.toHexString(), attempt: attempts + 1 })),
        workerId,
      );
      return claimsMade.then((won) => won.has(deliveryId));
    };
    const messagesRead = messages.many(page.map(({ messageId }) => messageId));
    messagesRead.catch(() => undefined);
    const targets = new Map<string, ReturnType<typeof endpoints.target>>();
    const secrets = new Map<string, ReturnType<typeof signingSecrets>>();
    const once = <T>(memo: Map<string, Promise<T>>, key: string, read: () => Promise<T>) => {
      const known = memo.get(key) ?? read();
      memo.set(key, known);
      return known;
    };
    return {
      claimed,
      message: async (messageId: string) => (await messagesRead).get(messageId),
      target: (endpointId: string) => once(targets, endpointId, () => endpoints.target(endpointId)),
      secrets: (endpointId: string) => once(secrets, endpointId, () => signingSecrets(endpointId, now)),
      disabled: (endpointId: string) => targets.delete(endpointId),
    };
  }
  type PageReads = ReturnType<typeof pageReads>;

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

  /** The attempt after the last one recorded: claimed, made, recorded, or given back unmade. */
  async function attempt(delivery: DeliveryDoc, reads: PageReads) {
    const deliveryId = delivery._id.toHexString();
    const number = delivery.attempts + 1;
    if (!(await reads.claimed(deliveryId))) return takeOverIfAbandoned(delivery, number);
    const [target, message] = await Promise.all([reads.target(delivery.endpointId), reads.message(delivery.messageId)]);
    if (!target || target.status === "DISABLED" || !message) {
      await deliveries.abandon(delivery._id);
      return attempts.release(deliveryId, number);
    }
    const now = new Date();
    const secrets = await reads.secrets(delivery.endpointId);
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
    if (statusCode === null && stop.signal.aborted) return attempts.release(deliveryId, number);
    const result = attemptResult(
      settings.retrySchedule,
      { attempt: number, resendAttempt: delivery.resendAttempt },
      statusCode,
      new Date(),
    );
    // Disabled first: once the delivery reads FAILED, the endpoint reads DISABLED.
    if (statusCode === 410) {
      reads.disabled(delivery.endpointId);
      await endpoints.disable(delivery.endpointId);
    }
    await deliveries.recordAttempt(delivery._id, number, result, error);
    metrics.webhookAttempts.inc({ outcome: result.status });
    warnIfFailed(delivery, number, result, error);
  }

  /**
   * The operator's view of what the account sees in its deliveries: each attempt that failed (no 2xx), one `warn`
   * line with the endpoint, delivery, attempt and the status or error got; never the URL, secret or payload.
   */
  function warnIfFailed(delivery: DeliveryDoc, number: number, result: AttemptResult, error: string | null) {
    if (result.status === "SUCCEEDED") return;
    const { endpointId, accountId } = delivery;
    const failure = {
      deliveryId: delivery._id.toHexString(),
      endpointId,
      accountId,
      attempt: number,
      statusCode: result.lastStatusCode,
      error,
      outcome: result.status,
      nextAttemptAt: result.nextAttemptAt,
    };
    if (result.status === "PENDING") log.warn(failure, "webhook delivery attempt failed: a retry follows");
    else log.warn(failure, "webhook delivery failed: no attempt left (it can still be resent)");
  }

  /**
   * The attempt is claimed by another worker. If that worker stopped without a graceful shutdown (its claim is old,
   * and the delivery does not have the attempt recorded: else the poll would not be at it), the attempt counts as made
   * without an answer, and the next one follows the schedule.
   */
  async function takeOverIfAbandoned(delivery: DeliveryDoc, number: number) {
    const claim = await attempts.get(delivery._id.toHexString(), number);
    const now = new Date();
    if (!claim || now.getTime() - claim.claimedAt.getTime() < settings.timeoutMs + ABANDONED_AFTER_MARGIN_MS) return;
    const result = attemptResult(
      settings.retrySchedule,
      { attempt: number, resendAttempt: delivery.resendAttempt },
      null,
      now,
    );
    const error = "the worker making the attempt stopped";
    await deliveries.recordAttempt(delivery._id, number, result, error);
    warnIfFailed(delivery, number, result, error);
  }

  function start(delivery: DeliveryDoc, reads: PageReads) {
    const key = delivery._id.toHexString();
    const run = attempt(delivery, reads)
      .catch((error) => log.error({ err: error, deliveryId: key }, "webhook attempt failed"))
      .finally(() => inFlight.delete(key));
    inFlight.set(key, run);
    return run;
  }

  let lastPollEndedAt = new Date();

  /** Runs `task` every `intervalMs`, one run at a time, until the worker stops. */
  function every(intervalMs: number, name: MeasuredTask, task: () => Promise<void>, what: string) {
    const schedule = (delayMs: number) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        // Its commands count as the webhooks' (billing_db_commands_total), the attempts it starts included.
        const running = asWebhookWork(() => metrics.timed(name, task))
          .catch((error) => log.error({ err: error }, what))
          .finally(() => {
            if (name === "webhook_poll") lastPollEndedAt = new Date();
            tasksRunning.delete(running);
            if (!stop.signal.aborted) schedule(intervalMs);
          });
        tasksRunning.add(running);
      }, delayMs);
      timers.add(timer);
    };
    schedule(0);
  }

  /**
   * One look for due attempts: starts a page of them (as many as are free of MAX_IN_FLIGHT). Whether more were due
   * than it started (the page is full, or the read was).
   */
  async function pollPage(): Promise<{ started: Promise<void>[]; more: boolean }> {
    if (inFlight.size >= MAX_IN_FLIGHT) return { started: [], more: false };
    const now = new Date();
    const due = await deliveries.due(now, MAX_IN_FLIGHT * 2);
    lastPollEndedAt = new Date();
    const waiting = due.filter(({ _id }) => !inFlight.has(_id.toHexString()));
    const page = waiting.slice(0, MAX_IN_FLIGHT - inFlight.size);
    if (page.length === 0 || stop.signal.aborted) return { started: [], more: false };
    // The whole page starts here, at once (it fits the free slots): its claims, made together, are all attempted.
    const reads = pageReads(page, now);
    const started = page.map((delivery) => start(delivery, reads));
    return { started, more: waiting.length > page.length || due.length === MAX_IN_FLIGHT * 2 };
  }

  // A backlog (a month-end's messages) is worked through page after page, each as soon as the one before is answered
  // (or a poll interval has passed: a slow endpoint holds its slots, not the others'); then a look an interval.
  every(
    settings.pollIntervalMs,
    "webhook_poll",
    async () => {
      for (;;) {
        const { started, more } = await pollPage();
        if (!more || stop.signal.aborted) return;
        let timer: NodeJS.Timeout | undefined;
        const interval = new Promise((resolve) => (timer = setTimeout(resolve, settings.pollIntervalMs)));
        await Promise.race([Promise.allSettled(started), interval]);
        clearTimeout(timer);
        if (stop.signal.aborted) return;
      }
    },
    "could not look for due webhook attempts",
  );
  every(
    settings.sweepIntervalMs,
    "webhook_sweep",
    () => sweepChanges(repositories, new Date(), settings.sweepMinAgeMs),
    "the webhook sweep failed",
  );

  return {
    alive: (now) =>
      !stop.signal.aborted &&
      // A look is one database read (a backlog's pages each one): none ended for longer than an endpoint may take to
      // answer is a stuck worker.
      now.getTime() - lastPollEndedAt.getTime() <= settings.pollIntervalMs + settings.timeoutMs,
    async close() {
      stop.abort();
      for (const timer of timers) clearTimeout(timer);
      // A poll in progress may still start attempts (they stop at once): wait for it before the attempts.
      await Promise.allSettled(tasksRunning);
      await Promise.allSettled(inFlight.values());
    },
  };
}
