/** The resource types, their pages and the methods' results, straight from the service's schemas. */

export type { ErrorCode, ErrorIssue } from "@billing/shared";
/** The API version this SDK was built against: the server sends its own in every response's `API-Version` header. */
export { API_VERSION } from "@billing/shared";
export { type BillingClient, type BillingClientOptions, createAdminClient, createBillingClient } from "./client.js";
/** The ISO 4217 codes the service accepts, and their union, the type of every `currency` field. */
export { CURRENCY_CODES, type CurrencyCode } from "./currency.js";
export * from "./errors.js";
export { AutoPaginator, type WithoutCursor } from "./pagination.js";
export type { KeyedRequestOptions, RequestOptions, UnretriedRequestOptions } from "./request-options.js";
/** Each resource's interface and parameter types: one line a resource. */
export type { AdminClient } from "./resources/admin.js";
export type { AlertCreateParams, AlertListParams, AlertsApi } from "./resources/alerts.js";
export type { AuditLogApi, AuditLogListParams } from "./resources/audit-log.js";
export type { BackfillCreateParams, BackfillListParams, BackfillsApi } from "./resources/backfills.js";
export type { BillingApi, BillingRunParams } from "./resources/billing.js";
export type {
  ContractCreateParams,
  ContractListParams,
  ContractsApi,
  ContractTerminateParams,
  ContractUpdateParams,
  SeatChangeParams,
} from "./resources/contracts.js";
export type { CouponCreateParams, CouponListParams, CouponsApi } from "./resources/coupons.js";
export type { CreditNoteCreateParams, CreditNoteListParams, CreditNotesApi } from "./resources/credit-notes.js";
export type { CreditBalanceParams, CreditGrantParams, CreditListParams, CreditsApi } from "./resources/credits.js";
export type { CustomerStreamEvent, CustomerStreamOptions } from "./resources/customer-stream.js";
export type {
  CustomerCreateParams,
  CustomerListParams,
  CustomersApi,
  CustomerUpdateParams,
} from "./resources/customers.js";
export type { CreditNoteDocumentsApi, InvoiceDocumentsApi } from "./resources/documents.js";
export type { EventIngestOptions, EventInputParams, EventQueryParams, EventsApi } from "./resources/events.js";
export type { ExportCreateParams, ExportsApi } from "./resources/exports.js";
export type {
  InvoiceListParams,
  InvoicePaymentParams,
  InvoicePreviewParams,
  InvoiceSimulationParams,
  InvoicesApi,
  InvoiceVoidParams,
} from "./resources/invoices.js";
export type { MeasurementCreateParams, MeasurementsApi } from "./resources/measurements.js";
export type { MeterCreateParams, MeterListParams, MetersApi, MeterUpdateParams } from "./resources/meters.js";
export type {
  PlanContractsParams,
  PlanCreateParams,
  PlanListParams,
  PlanMigrationParams,
  PlanSimulationParams,
  PlansApi,
  PlanVersionCreateParams,
} from "./resources/plans.js";
export type {
  CollectionsParams,
  MrrParams,
  ReceivablesParams,
  ReportsApi,
  RevenueParams,
} from "./resources/reports.js";
export type { ReservationCreateParams, ReservationsApi } from "./resources/reservations.js";
export type {
  TaxRateCreateParams,
  TaxRateListParams,
  TaxRatesApi,
  TaxRateUpdateParams,
} from "./resources/tax-rates.js";
export type { TestClockAdvanceParams, TestClockApi } from "./resources/test-clock.js";
export type { TokenApi } from "./resources/token.js";
export type { UsageApi, UsageParams } from "./resources/usage.js";
export type {
  WebhookDeliveryListParams,
  WebhookEndpointCreateParams,
  WebhookEndpointListParams,
  WebhookEndpointsApi,
  WebhookEndpointUpdateParams,
} from "./resources/webhook-endpoints.js";
export type { RetryMode } from "./retry.js";
export type {
  Account,
  AccountCreated,
  Alert,
  AlertList,
  AlertPeriod,
  AttributionReason,
  AuditEntry,
  AuditLogPage,
  Backfill,
  BackfillList,
  BillingRun,
  BillingStatus,
  CollectionsReport,
  Commitment,
  Contract,
  ContractHistoryEntry,
  ContractList,
  ContractStatus,
  Coupon,
  CouponList,
  CouponRedemption,
  CreditBalance,
  CreditEntryType,
  CreditLedgerEntry,
  CreditList,
  CreditNote,
  CreditNoteList,
  CurrentToken,
  Customer,
  CustomerList,
  Entitlement,
  Event,
  EventAttribution,
  EventExplanation,
  EventIngestResult,
  EventList,
  EventVoid,
  Export,
  GrantBalance,
  Invoice,
  InvoiceAdjustment,
  InvoiceList,
  InvoicePayment,
  InvoicePreview,
  InvoiceSimulation,
  InvoiceStatus,
  LineItem,
  LineTax,
  Measurement,
  Meter,
  MeterAggregation,
  MeterFilter,
  MeterList,
  MrrContractMove,
  MrrMonth,
  MrrReport,
  NewToken,
  Payment,
  PaymentInfo,
  Plan,
  PlanContractList,
  PlanList,
  PlanMigration,
  PlanOverride,
  PlanSimulation,
  PlanVersion,
  PriceTier,
  Pricing,
  Product,
  ProductGroup,
  ReceivablesAging,
  ReceivablesReport,
  RecurringGrant,
  Reservation,
  RevenueBreakdown,
  RevenuePeriod,
  RevenueReport,
  RevokedToken,
  Scheduling,
  SeatSchedule,
  TaxRate,
  TaxRateList,
  TestClock,
  TestClockAdvanced,
  TokenInfo,
  TokenList,
  TokenScope,
  Usage,
  UsageDate,
  UsageThresholdCrossed,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookDeliveryStatus,
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookEndpointList,
  WebhookEndpointStatus,
  WebhookEvent,
  WebhookEventData,
  WebhookEventType,
  WithCurrencyCodes,
} from "./types.js";
export * from "./webhooks.js";
