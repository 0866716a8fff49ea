import type { BillingApi } from "../api.js";
import type { Transport } from "../transport.js";

export function billingResource({ trpc, call }: Transport): BillingApi {
  return {
    // Retried: a run invoices each contract cycle once, however often it is repeated.
    run: (params = {}) => call((signal) => trpc.billing.run.mutate(params, { signal }), true).then(({ run }) => run),
  };
}
