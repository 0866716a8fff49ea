import type { Alert, AlertCreate } from "@billing/shared";
import { conflict, notFound } from "../../domain/errors.js";
import type { CallScope } from "../call-scope.js";
import { MAX_ALERTS_PER_ACCOUNT } from "./evaluate.js";

/**
 * Stores an alert on a meter of the account (404 when no meter has the key, as a typo would never fire), for one
 * customer of the account (404 otherwise) or for all. At most MAX_ALERTS_PER_ACCOUNT (409), checked before the
 * insert: concurrent creations may pass it by a few, which bounds evaluation all the same (it reads that many).
 */
export async function createAlert({ repositories, accountId }: CallScope, input: AlertCreate): Promise<Alert> {
  const [customerId, meter, count] = await Promise.all([
    input.customerId === undefined ? null : repositories.customers.idOf(accountId, input.customerId),
    repositories.meters.getByKey(accountId, input.meterKey),
    repositories.alerts.count(accountId),
  ]);
  if (customerId === undefined) throw notFound("Customer");
  if (!meter) throw notFound("Meter");
  if (count >= MAX_ALERTS_PER_ACCOUNT)
    throw conflict(`An account holds at most ${MAX_ALERTS_PER_ACCOUNT} alerts: delete one first`);
  return repositories.alerts.create(accountId, {
    customerId,
    meterKey: meter.key,
    thresholds: input.thresholds,
    period: input.period,
  });
}
