export { type RunningService, type ServiceOptions, startService } from "./app.js";
export { type ProvisionedDatabase, provisionDatabase } from "./db/provision.js";
export { createRepositories, ensureIndexes, type Repositories } from "./repositories/index.js";
export { createRateLimitRepository, type RateLimitRepository } from "./repositories/rate-limits.js";
export type { AppRouter } from "./routers/index.js";
export { appRouter } from "./routers/index.js";
export { entitlementOfMeter } from "./services/entitlements.js";
export { usageOf } from "./services/usage.js";
export { compactUsageRollups } from "./services/usage-rollups.js";
