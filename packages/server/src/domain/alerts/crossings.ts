/**
 * The thresholds (micro-units, increasing) a period's usage has reached: a threshold is crossed once usage is at or
 * above it. Usage 250 with thresholds [100, 200, 300] has crossed 100 and 200.
 */
export const crossedThresholds = (thresholdsMicros: readonly number[], usageMicros: bigint): number[] =>
  thresholdsMicros.filter((threshold) => BigInt(threshold) <= usageMicros);

/**
 * The key of one crossing: an alert, a customer, a threshold, a period. The crossing document's `_id`, so that of
 * all the evaluations seeing it (requests, sweeps, other instances) exactly one inserts it and publishes it first.
 */
export const crossingKey = (alertId: string, customerId: string, thresholdMicros: number, periodStart: Date) =>
  `${alertId}/${customerId}/${thresholdMicros}/${periodStart.toISOString()}`;
