/**
 * Filters whose union is the entries recorded (their `recordedAt`, real time) before `cut`, counting those written
 * before entries had a `recordedAt`: what a closed month sums (repositories/report-closings.ts); those recorded
 * since are added on read. Two filters, each served by an index range, rather than one `$not` no index bounds.
 */
export const recordedBefore = (cut: Date) => [{ recordedAt: { $lt: cut } }, { recordedAt: { $exists: false } }];
