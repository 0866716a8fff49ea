import type { AlertPeriod } from "@billing/shared";
import { type MeterTerms, meterTermsAt, type UsagePeriod, utcDayOf, utcMonthOf } from "../domain/alerts/periods.js";
import { dayKey } from "../domain/billing/cycles.js";
import type { Repositories } from "../repositories/index.js";
import { readCustomerContracts } from "./contract-reads.js";
import { type KnownUsageFacts, usageReader } from "./usage.js";

/** A customer's contracts, read once per evaluation and kept for each meter and instant asked about. */
export function customerTerms(repositories: Repositories, accountId: string, customerId: string) {
  const contracts = readCustomerContracts(repositories, accountId, customerId);
  return {
    contracts,
    of: async (meterKey: string, at: Date): Promise<MeterTerms | undefined> =>
      meterTermsAt(await contracts, meterKey, at),
  };
}
export type CustomerTerms = ReturnType<typeof customerTerms>;

/** The period containing `at`: its UTC day, or its billing cycle of the meter (the UTC month when none prices it). */
export async function periodOf(terms: CustomerTerms, meterKey: string, period: AlertPeriod, at: Date) {
  if (period === "DAY") return utcDayOf(at);
  return (await terms.of(meterKey, at))?.cycle ?? utcMonthOf(at);
}

/**
 * The customer's usage of these meters (summed, as billing counts a group's) over a period's days, in micro-units:
 * one read of them all, of what `known` does not hold already.
 */
export async function usageMicrosOf(
  repositories: Repositories,
  accountId: string,
  customerId: string,
  meterKeys: readonly string[],
  period: UsagePeriod,
  known: KnownUsageFacts = {},
): Promise<bigint> {
  const [from, to] = [dayKey(period.start), dayKey(period.end)];
  if (from === to) return 0n;
  const spans = await usageReader(repositories, accountId, customerId, undefined, known).readMany(meterKeys, from, to);
  return [...spans.values()].reduce((total, span) => total + span.over().valueMicros, 0n);
}
