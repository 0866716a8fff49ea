import { adminResource, type AdminClient } from "./resources/admin.js";
import { billingResource, type BillingApi } from "./resources/billing.js";
import { contractsResource, type ContractsApi } from "./resources/contracts.js";
import { creditsResource, type CreditsApi } from "./resources/credits.js";
import { customersResource, type CustomersApi } from "./resources/customers.js";
import { eventsResource, type EventsApi } from "./resources/events.js";
import { invoicesResource, type InvoicesApi } from "./resources/invoices.js";
import { measurementsResource, type MeasurementsApi } from "./resources/measurements.js";
import { metersResource, type MetersApi } from "./resources/meters.js";
import { usageResource, type UsageApi } from "./resources/usage.js";
import { webhookEndpointsResource, type WebhookEndpointsApi } from "./resources/webhook-endpoints.js";
import { createTransport, type TransportOptions } from "./transport.js";

export type BillingClientOptions = TransportOptions;

/**
 * The SDK's surface: one namespace per resource, each declared beside its implementation in `resources/`. Every type
 * comes from a shared zod schema (inputs as callers write them, `z.input`; outputs as the server returns them), and
 * the implementations are type-checked against the server's router, so the two cannot drift apart. Users see no tRPC
 * or database types.
 */
export interface BillingClient {
  customers: CustomersApi;
  contracts: ContractsApi;
  invoices: InvoicesApi;
  measurements: MeasurementsApi;
  credits: CreditsApi;
  events: EventsApi;
  meters: MetersApi;
  usage: UsageApi;
  billing: BillingApi;
  webhookEndpoints: WebhookEndpointsApi;
}

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
