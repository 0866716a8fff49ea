import type { Logger } from "../../logger.js";
import type { Repositories } from "../../repositories/index.js";
import { evaluateChangeLogged, type UsageChange } from "./evaluate.js";

/** Changes an instance holds for evaluation at most: past it, new ones wait for the scheduler's sweep. */
export const MAX_PENDING_CHANGES = 1000;

export interface AlertTrigger {
  /** Queues the change for evaluation after the response: never waits, never throws. */
  usageChanged(change: UsageChange): void;
  /** Resolves once every change queued so far has been evaluated (its crossings and their deliveries stored). */
  idle(): Promise<void>;
  /** Takes no more changes and resolves once the evaluation in progress has ended. */
  close(): Promise<void>;
}

/** The trigger of each running service, by its repositories: ingestion reaches it without a new context field. */
const triggers = new WeakMap<Repositories, AlertTrigger>();

/** Work of another kind that follows each change after its alerts (threshold billing): it logs its own failures. */
export type AfterUsageChange = (change: UsageChange) => Promise<void>;

/**
 * An instance's evaluation of alerts after ingestion, off the request path: changes queue in memory and one
 * evaluation runs at a time, at once, in arrival order, followed by `after` (app.ts: threshold billing). A crash loses
 * the queue: the sweep evaluates today's periods.
 */
export function startAlertTrigger(repositories: Repositories, log: Logger, after?: AfterUsageChange): AlertTrigger {
  const pending: UsageChange[] = [];
  let draining: Promise<void> | undefined;
  let closed = false;

  async function drain() {
    for (let change = pending.shift(); change && !closed; change = pending.shift()) {
      await evaluateChangeLogged(repositories, change, log);
      await after?.(change);
    }
    draining = undefined;
  }

  const trigger: AlertTrigger = {
    usageChanged(change) {
      if (closed) return;
      if (pending.length >= MAX_PENDING_CHANGES) {
        log.warn({ accountId: change.accountId }, "alert evaluation queue full; the scheduler's sweep catches up");
        return;
      }
      pending.push(change);
      draining ??= new Promise<void>((resolve) => setImmediate(resolve)).then(drain);
    },
    async idle() {
      while (draining) await draining;
    },
    async close() {
      closed = true;
      pending.length = 0;
      await draining;
      triggers.delete(repositories);
    },
  };
  triggers.set(repositories, trigger);
  return trigger;
}

/** Tells the service's trigger (if it runs one: the CLI does not) that ingestion changed usage. */
export function usageChanged(repositories: Repositories, change: UsageChange) {
  triggers.get(repositories)?.usageChanged(change);
}
