import type { MrrMonth, ReceivablesAging, RevenuePeriod } from "@billing/shared";
import type { MrrMove, MrrPeriod } from "../domain/reports/mrr.js";
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
export const presentRevenuePeriod = (period: RevenuePeriodInMicros & { unbilled: number }): RevenuePeriod => ({
  start: period.start.toISOString(),
  end: period.end.toISOString(),
  billed: amountOf(period.billed),
  recognized: amountOf(period.recognized),
  deferred: amountOf(period.deferred),
  unbilled: amountOf(period.unbilled),
});

const presentMove = (move: MrrMove) => ({ ...move, before: amountOf(move.before), after: amountOf(move.after) });

const presentMovement = ({ amount, contracts }: { amount: number; contracts: MrrMove[] }) => ({
  amount: amountOf(amount),
  contracts: contracts.map(presentMove),
});

/** A month of MRR in micro-units as the API's decimals; ARR is 12 × MRR, exact in micro-units. */
export const presentMrrMonth = (period: MrrPeriod): MrrMonth => ({
  start: period.start.toISOString(),
  end: period.end.toISOString(),
  mrr: amountOf(period.mrr),
  arr: amountOf(period.mrr * 12),
  recurring: amountOf(period.recurring),
  usage: amountOf(period.usage),
  movements: {
    new: presentMovement(period.movements.new),
    expansion: presentMovement(period.movements.expansion),
    contraction: presentMovement(period.movements.contraction),
    churn: presentMovement(period.movements.churn),
    reactivation: presentMovement(period.movements.reactivation),
  },
});
