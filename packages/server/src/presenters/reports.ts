import type { ReceivablesAging } from "@billing/shared";
import type { Aging } from "../domain/reports/receivables.js";
import { sumAging } from "../domain/reports/receivables.js";
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
