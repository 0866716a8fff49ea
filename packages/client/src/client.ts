import type { AdminClient, BillingClient } from "./api.js";
import { adminResource } from "./resources/admin.js";
import { billingResource } from "./resources/billing.js";
import { contractsResource } from "./resources/contracts.js";
import { creditsResource } from "./resources/credits.js";
import { customersResource } from "./resources/customers.js";
import { eventsResource } from "./resources/events.js";
import { invoicesResource } from "./resources/invoices.js";
import { measurementsResource } from "./resources/measurements.js";
import { metersResource } from "./resources/meters.js";
import { usageResource } from "./resources/usage.js";
import { webhookEndpointsResource } from "./resources/webhook-endpoints.js";
import { createTransport, type TransportOptions } from "./transport.js";

export type BillingClientOptions = TransportOptions;

/**
 * The billing service for a TypeScript app: one namespace per resource, one method per operation.
 * Calls made in the same tick are batched into one HTTP request.
 */
export function createBillingClient(options: BillingClientOptions): BillingClient {
  const transport = createTransport(options);
  return {
    customers: customersResource(transport),
    contracts: contractsResource(transport),
    invoices: invoicesResource(transport),
    measurements: measurementsResource(transport),
    credits: creditsResource(transport),
    events: eventsResource(transport),
    meters: metersResource(transport),
    usage: usageResource(transport),
    billing: billingResource(transport),
    webhookEndpoints: webhookEndpointsResource(transport),
  };
}

/** Operator calls (`/admin/*`), made with the server's ADMIN_TOKEN as `token`. */
export function createAdminClient(options: BillingClientOptions): AdminClient {
  return adminResource(createTransport(options));
}
