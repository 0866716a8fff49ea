import { type AdminClient, adminResource } from "./resources/admin.js";
import { type AlertsApi, alertsResource } from "./resources/alerts.js";
import { type AuditLogApi, auditLogResource } from "./resources/audit-log.js";
import { type BackfillsApi, backfillsResource } from "./resources/backfills.js";
import { type BillingApi, billingResource } from "./resources/billing.js";
import { type CollectionApi, collectionResource } from "./resources/collection.js";
import { type ContractsApi, contractsResource } from "./resources/contracts.js";
import { type CouponsApi, couponsResource } from "./resources/coupons.js";
import { type CreditNotesApi, creditNotesResource } from "./resources/credit-notes.js";
import { type CreditsApi, creditsResource } from "./resources/credits.js";
import { type CustomersApi, customersResource } from "./resources/customers.js";
import {
  type CreditNoteDocumentsApi,
  creditNoteDocumentsResource,
  type InvoiceDocumentsApi,
  invoiceDocumentsResource,
} from "./resources/documents.js";
import { type EventsApi, eventsResource } from "./resources/events.js";
import { type ExportsApi, exportsResource } from "./resources/exports.js";
import { type InvoicesApi, invoicesResource } from "./resources/invoices.js";
import { type MeasurementsApi, measurementsResource } from "./resources/measurements.js";
import { type MetersApi, metersResource } from "./resources/meters.js";
import { type PlansApi, plansResource } from "./resources/plans.js";
import { type ReportsApi, reportsResource } from "./resources/reports.js";
import { type ReservationsApi, reservationsResource } from "./resources/reservations.js";
import { type TaxRatesApi, taxRatesResource } from "./resources/tax-rates.js";
import { type TestClockApi, testClockResource } from "./resources/test-clock.js";
import { type TokenApi, tokenResource } from "./resources/token.js";
import { type UsageApi, usageResource } from "./resources/usage.js";
import { type WebhookEndpointsApi, webhookEndpointsResource } from "./resources/webhook-endpoints.js";
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
  invoices: InvoicesApi & InvoiceDocumentsApi;
  measurements: MeasurementsApi;
  credits: CreditsApi;
  creditNotes: CreditNotesApi & CreditNoteDocumentsApi;
  events: EventsApi;
  meters: MetersApi;
  taxRates: TaxRatesApi;
  /** The price catalog: plans, their versions, subscribers and migrations. */
  plans: PlansApi;
  coupons: CouponsApi;
  /** Reserve-then-settle of a meter's units against the customer's limit (POST /customers/{id}/reservations). */
  reservations: ReservationsApi;
  usage: UsageApi;
  /** The token this client calls with (GET /token). */
  token: TokenApi;
  billing: BillingApi;
  webhookEndpoints: WebhookEndpointsApi;
  alerts: AlertsApi;
  auditLog: AuditLogApi;
  /** A test account's clock (GET /test-clock, POST /test-clock/advance). */
  testClock: TestClockApi;
  /** Month-end reports: receivables aging, revenue, MRR (GET /reports/receivables, /reports/revenue, /reports/mrr). */
  reports: ReportsApi;
  /** Exports a warehouse loads (POST /exports, GET /exports/{id}, GET /exports/{id}/file). */
  exports: ExportsApi;
  /** Backfills of a meter's window (POST /backfills, GET /backfills, GET /backfills/{id}, POST …/revert). */
  backfills: BackfillsApi;
  /** Payment provider, customer links and charges (PUT /payment-providers/stripe, POST /invoices/{id}/collect). */
  collection: CollectionApi;
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
    invoices: { ...invoicesResource(transport), ...invoiceDocumentsResource(transport) },
    measurements: measurementsResource(transport),
    credits: creditsResource(transport),
    creditNotes: { ...creditNotesResource(transport), ...creditNoteDocumentsResource(transport) },
    events: eventsResource(transport),
    meters: metersResource(transport),
    taxRates: taxRatesResource(transport),
    plans: plansResource(transport),
    coupons: couponsResource(transport),
    reservations: reservationsResource(transport),
    usage: usageResource(transport),
    token: tokenResource(transport),
    billing: billingResource(transport),
    webhookEndpoints: webhookEndpointsResource(transport),
    alerts: alertsResource(transport),
    auditLog: auditLogResource(transport),
    testClock: testClockResource(transport),
    reports: reportsResource(transport),
    exports: exportsResource(transport),
    backfills: backfillsResource(transport),
    collection: collectionResource(transport),
  };
}

/** Operator calls (`/admin/*`), made with the server's ADMIN_TOKEN as `token`. */
export function createAdminClient(options: BillingClientOptions): AdminClient {
  return adminResource(createTransport(options));
}
