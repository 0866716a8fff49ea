import type { ReceivablesAging, RevenuePeriod } from "@billing/shared";
import { type Aging, sumAging } from "../domain/reports/receivables.js";
import type { RevenuePeriod as RevenuePeriodInMicros } from "../domain/reports/revenue.js";
import { amountOf } from "./money.js";

/** An aging in micro-units as the API's decimals, with its total. */
export const presentAging = (aging: Aging): ReceivablesAging => ({
  current: amountOf(aging.current),
  "1-30": amountOf(aging["1-30"]),
  "31-60": amountOf(aging["31-60"]),
  "61-90": amountOf(aging["61-90"]),
  "90+": amountOf(aging["90+"]),
  total: amountOf(sumAging(aging)),
});

/** A revenue period in micro-units as the API's decimals. */
export const presentRevenuePeriod = (period: RevenuePeriodInMicros): RevenuePeriod => ({
  start: period.start.toISOString(),
  end: period.end.toISOString(),
  billed: amountOf(period.billed),
  recognized: amountOf(period.recognized),
  deferred: amountOf(period.deferred),
});
