export { createAdminClient, createBillingClient, type AdminClient, type BillingClient, type BillingClientOptions } from "./client.js";
export * from "./errors.js";
export { AutoPaginator } from "./pagination.js";
export type { Inputs, Outputs } from "./types.js";
