import type { Logger } from "../logger.js";
import type { ServiceMetrics } from "../observability/metrics.js";
import type { Repositories } from "../repositories/index.js";
import { type Repeating, repeatEvery } from "./repeat-every.js";

/**
 * The pause between purges. With PURGE_BATCHES_PER_TICK × PURGE_BATCH_SIZE (10,000) documents per collection a tick,
 * one instance keeps up with 60,000 rate-limit slots a minute: about 1,000 calls a second.
 */
export const EXPIRY_PURGE_INTERVAL_MS = 10_000;

export type ExpiryPurge = Pick<Repeating, "close">;

/**
 * One purge: the spent rate-limit windows and slots, the forgotten idempotency records, then the billing claims of
 * calls that died, the test clocks' leases that ran out and audit log entries past their retention. Bounded work.
 */
export async function purgeExpiredRecords(repositories: Repositories, now: Date): Promise<number> {
  const slots = await repositories.rateLimits.purgeExpired(now);
  const keys = await repositories.idempotencyKeys.purgeExpired(now);
  const claims = await repositories.billingClaims.purgeExpired(now);
  const leases = await repositories.testClockLeases.purgeExpired(now);
  return slots + keys + claims + leases + (await repositories.auditLog.purgeExpired(now));
}

/**
 * Deletes expired records in the background, every `intervalMs` (EXPIRY_PURGE_INTERVAL_MS in production): started
 * where the database has no TTL indexes (FerretDB; see expiresByTtl), since on MongoDB the TTL indexes do it. No
 * request deletes them. Several instances may purge at once: each deletes only documents that are expired, so they
 * can at worst repeat a read.
 */
export function startExpiryPurge(
  repositories: Repositories,
  log: Logger,
  metrics: ServiceMetrics,
  intervalMs: number,
): ExpiryPurge {
  return repeatEvery(
    intervalMs,
    async () => {
      const deleted = await metrics.timed("expiry_purge", () => purgeExpiredRecords(repositories, new Date()));
      log.debug({ deleted }, "expired records purged");
    },
    (error) => log.error({ err: error }, "purging expired records failed; the next purge tries again"),
  );
}
