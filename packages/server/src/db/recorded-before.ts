/**
 * A filter on entries recorded (their `recordedAt`, real time) before `cut`, or written before entries had a
 * `recordedAt`: what a closed month sums (repositories/report-closings.ts); those recorded since are added on read.
 */
export const recordedBefore = (cut: Date) => ({ recordedAt: { $not: { $gte: cut } } });
