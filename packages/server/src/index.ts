export type { AppRouter } from "./routers/index.js";
export { appRouter } from "./routers/index.js";
export { startService, type RunningService, type ServiceOptions } from "./app.js";
export { provisionDatabase, type ProvisionedDatabase } from "./db/provision.js";
export { createRateLimitRepository, type RateLimitRepository } from "./repositories/rate-limits.js";
