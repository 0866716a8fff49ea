import { DAY_MS } from "@billing/shared";
import { billingNow, onAccountClock } from "../../billing-clock.js";
import { crossedThresholds, crossingKey } from "../../domain/alerts/crossings.js";
import type { UsagePeriod } from "../../domain/alerts/periods.js";
import { nearestMicrosOfBigint } from "../../domain/money/micros.js";
import type { Logger } from "../../logger.js";
import { unitsOfQuantityMicros } from "../../presenters/money.js";
import type { CrossingDoc } from "../../repositories/alert-crossings.js";
import type { StoredAlert } from "../../repositories/alerts.js";
import type { Repositories } from "../../repositories/index.js";
import { customerTerms, periodOf, usageMicrosOf } from "../meter-terms.js";
import { recordChange } from "../webhook-events.js";

/** Alerts an account may hold: what one evaluation reads and checks at most. */
export const MAX_ALERTS_PER_ACCOUNT = 100;

/** The data of `usage.threshold_crossed` of a stored crossing. */
const crossingEvent = (crossing: CrossingDoc) => ({
  type: "usage.threshold_crossed" as const,
  data: {
    alertId: crossing.alertId,
    customerId: crossing.customerId,
    meterKey: crossing.meterKey,
    threshold: unitsOfQuantityMicros(crossing.thresholdMicros),
    value: unitsOfQuantityMicros(crossing.valueMicros),
    periodStart: crossing.periodStart.toISOString(),
    periodEnd: crossing.periodEnd.toISOString(),
    crossedAt: crossing.crossedAt.toISOString(),
  },
});

/**
 * Evaluates a customer's alerts over the periods containing `instants` that have not ended more than a day before
 * `now` (late usage of yesterday still alerts; a backfill of last year does not). Each threshold reached in a period
 * is claimed by inserting its crossing; the crossing not yet published is then published, exactly once per message
 * id whoever publishes it. A lower usage later (a correction) leaves the stored crossing: it never fires again.
 */
export async function evaluateCustomerAlerts(
  repositories: Repositories,
  accountId: string,
  customerId: string,
  alerts: readonly StoredAlert[],
  instants: readonly Date[],
  now: Date,
) {
  const terms = customerTerms(repositories, accountId, customerId);
  const usages = new Map<string, Promise<bigint>>();
  const usageOver = (meterKey: string, period: UsagePeriod) => {
    const key = `${meterKey}/${period.start.toISOString()}/${period.end.toISOString()}`;
    const known = usages.get(key) ?? usageMicrosOf(repositories, accountId, customerId, [meterKey], period);
    usages.set(key, known);
    return known;
  };
  for (const alert of alerts) {
    if (alert.customerId !== null && alert.customerId !== customerId) continue;
    const periods = new Map<number, UsagePeriod>();
    for (const at of instants) {
      const period = await periodOf(terms, alert.meterKey, alert.period, at);
      if (period.end.getTime() > now.getTime() - DAY_MS) periods.set(period.start.getTime(), period);
    }
    for (const period of periods.values()) {
      const valueMicros = await usageOver(alert.meterKey, period);
      for (const thresholdMicros of crossedThresholds(alert.thresholdsMicros, valueMicros)) {
        const crossing = await repositories.alertCrossings.claim({
          _id: crossingKey(alert.id, customerId, thresholdMicros, period.start),
          accountId,
          alertId: alert.id,
          customerId,
          meterKey: alert.meterKey,
          thresholdMicros,
          valueMicros: nearestMicrosOfBigint(valueMicros),
          periodStart: period.start,
          periodEnd: period.end,
          crossedAt: billingNow(accountId),
          publishedAt: null,
        });
        if (crossing.publishedAt) continue;
        await recordChange(repositories, accountId, crossingEvent(crossing));
        await repositories.alertCrossings.markPublished(crossing._id);
      }
    }
  }
}

/**
 * What ingestion changed: events (by alias and name, on these UTC days) or one measurement; `testClockAt`, a test
 * account's clock when it ingested (absent: a live account, evaluated on real time).
 */
export type UsageChange = {
  accountId: string;
  instants: Date[];
  testClockAt?: Date;
  /** Whether threshold billing follows (the account has contracts with thresholds, or it is unknown). */
  thresholds?: boolean;
} & (
  | { kind: "events"; aliases: string[]; eventNames: string[] }
  | { kind: "measurement"; customerId: string; meterKey: string }
);

/** Evaluates the alerts a change of usage may have crossed: bounded by the batch (its aliases, names and days). */
export async function evaluateChange(repositories: Repositories, change: UsageChange, now: Date) {
  const { accountId } = change;
  const meterKeys =
    change.kind === "measurement"
      ? [change.meterKey]
      : (await Promise.all(change.eventNames.map((name) => repositories.meters.ofEventName(accountId, name))))
          .flat()
          .map((meter) => meter.key);
  const alerts = await repositories.alerts.ofMeters(accountId, [...new Set(meterKeys)], MAX_ALERTS_PER_ACCOUNT);
  if (alerts.length === 0) return;
  const customerIds =
    change.kind === "measurement"
      ? [change.customerId]
      : await Promise.all(change.aliases.map((alias) => repositories.customers.attributedTo(accountId, alias)));
  for (const customerId of new Set(customerIds)) {
    if (customerId) await evaluateCustomerAlerts(repositories, accountId, customerId, alerts, change.instants, now);
  }
}

/**
 * Logs instead of throwing: evaluation runs in the background, and the sweep catches up on what failed. It runs on the
 * account's clock as ingestion read it (a test account's clock then), whatever work the queue drains beside it.
 */
export async function evaluateChangeLogged(repositories: Repositories, change: UsageChange, log: Logger) {
  try {
    const { accountId, testClockAt } = change;
    await onAccountClock(accountId, testClockAt, () => evaluateChange(repositories, change, billingNow(accountId)));
  } catch (error) {
    log.error({ err: error, accountId: change.accountId }, "alert evaluation failed; the scheduler's sweep retries");
  }
}
