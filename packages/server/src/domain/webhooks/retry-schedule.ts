import type { WebhookDeliveryStatus } from "@billing/shared";

/**
 * After the first attempt (at once): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, eight attempts over about 28 hours.
 */
export const DEFAULT_RETRY_SCHEDULE = "5,300,1800,7200,18000,36000,36000";

/** The delay before each retry in seconds, each counted from the attempt before it; the first attempt is immediate. */
export type RetrySchedule = readonly number[];

/** `WEBHOOK_RETRY_SCHEDULE`: comma-separated seconds (decimals allowed, so that tests can run in milliseconds). */
export function parseRetrySchedule(text: string): RetrySchedule | string {
  const parts = text.split(",").map((part) => part.trim());
  const delays = parts.map(Number);
  if (
    parts.some((part) => part === "") ||
    delays.some((delay) => !Number.isFinite(delay) || delay < 0 || delay > 7 * 86_400)
  ) {
    return "must be comma-separated seconds, each from 0 to 604800";
  }
  if (delays.length > 20) return "at most 20 retries";
  return delays;
}

/**
 * When the next attempt is due after attempt number `attempt` failed at `failedAt`, or undefined when the delivery has
 * failed for good: the schedule has no retry left, or the attempt was a resend (`resendAttempt`: the number of the
 * attempt a resend asked for), which is one attempt.
 */
export function retryAfterFailure(
  schedule: RetrySchedule,
  attempt: number,
  resendAttempt: number | null,
  failedAt: Date,
): Date | undefined {
  if (resendAttempt !== null && attempt >= resendAttempt) return undefined;
  const delay = schedule[attempt - 1];
  return delay === undefined ? undefined : new Date(failedAt.getTime() + delay * 1000);
}

/** A delivery's state after an attempt answered `statusCode` (null: no answer: refused, unreachable, timed out). */
export interface AttemptResult {
  status: WebhookDeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  nextAttemptAt: Date | null;
}

/** 2xx succeeds; 410 means the receiver wants no more (FAILED, and the endpoint is disabled); anything else retries. */
export function attemptResult(
  schedule: RetrySchedule,
  { attempt, resendAttempt }: { attempt: number; resendAttempt: number | null },
  statusCode: number | null,
  at: Date,
): AttemptResult {
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) {
    return { status: "SUCCEEDED", attempts: attempt, lastStatusCode: statusCode, nextAttemptAt: null };
  }
  const next = statusCode === 410 ? undefined : retryAfterFailure(schedule, attempt, resendAttempt, at);
  return {
    status: next ? "PENDING" : "FAILED",
    attempts: attempt,
    lastStatusCode: statusCode,
    nextAttemptAt: next ?? null,
  };
}
