export { createAdminClient, createBillingClient, type BillingClientOptions } from "./client.js";
export type * from "./api.js";
export * from "./errors.js";
export { AutoPaginator } from "./pagination.js";
/** The API version this SDK was built against: the server sends its own in every response's `API-Version` header. */
export { API_VERSION } from "@billing/shared";
/** The resource types, straight from the service's schemas. */
export type {
  Account,
  BillingRun,
  Contract,
  ContractStatus,
  CreditBalance,
  CreditLedgerEntry,
  GrantBalance,
  Customer,
  ErrorCode,
  ErrorIssue,
  Event,
  EventAttribution,
  EventExplanation,
  Invoice,
  InvoicePreview,
  LineItem,
  Measurement,
  Meter,
  MeterAggregation,
  Product,
  ProductGroup,
  RevenueBreakdown,
  Usage,
} from "@billing/shared";
