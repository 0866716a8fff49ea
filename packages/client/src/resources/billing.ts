import type { billingRunRequest } from "@billing/shared";
import type { RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type { BillingRun, Input } from "../types.js";

export type BillingRunParams = Input<typeof billingRunRequest>;

export interface BillingApi {
  /** Generates every invoice due up to `at` (default now). Safe: runs are idempotent. */
  run(params?: BillingRunParams, options?: RequestOptions): Promise<BillingRun>;
}

export function billingResource({ trpc, call }: Transport): BillingApi {
  return {
    // Safe: a run invoices each contract cycle once, however often it is repeated.
    run: (params = {}, options) =>
      call("safe", (attempt) => trpc.billing.run.mutate(params, attempt), options).then((r) => r.run),
  };
}
