/**
 * The SDK's public surface. Every type comes from a shared zod schema (inputs as callers write them,
 * `z.input`; outputs as the server returns them, `z.infer`); the implementations are type-checked against
 * the server's router, so the two cannot drift apart. Users see no tRPC or database types.
 */
import type * as schemas from "@billing/shared";
import type { z } from "zod";
import type { AutoPaginator } from "./pagination.js";

type Input<T extends z.ZodType> = z.input<T>;
type WithoutCursor<T> = Omit<T, "cursor">;

export type CustomerCreateParams = Input<typeof schemas.customerCreate>;
export type CustomerUpdateParams = Input<typeof schemas.customerUpdate>;
export type CustomerListParams = Input<typeof schemas.customerListQuery>;
export type ContractCreateParams = Input<typeof schemas.contractCreate>;
export type ContractListParams = Input<typeof schemas.contractListQuery>;
export type InvoiceListParams = Input<typeof schemas.invoiceListQuery>;
export type MeasurementCreateParams = Input<typeof schemas.measurementCreate>;
export type CreditGrantParams = Input<typeof schemas.creditGrant>;
export type CreditListParams = Input<typeof schemas.creditListQuery>;
export type CreditBalanceParams = Input<typeof schemas.creditBalanceQuery>;
export type EventInputParams = Input<typeof schemas.eventInput>;
export type EventQueryParams = Input<typeof schemas.eventQuery>;
export type InvoicePreviewParams = Input<typeof schemas.invoicePreviewRequest>;
export type BillingRunParams = Input<typeof schemas.billingRunRequest>;
export type MeterCreateParams = Input<typeof schemas.meterCreate>;
export type MeterUpdateParams = Input<typeof schemas.meterUpdate>;
export type MeterListParams = Input<typeof schemas.meterListQuery>;
export type UsageParams = Input<typeof schemas.usageQuery>;

export interface CustomersApi {
  /** Creates a customer; `name` must be unique in the account (ConflictError otherwise). Retried when transient, with an Idempotency-Key: created once. */
  create(input: CustomerCreateParams): Promise<schemas.Customer>;
  /** Replaces the fields given, keeps the others. Retried when transient, with an Idempotency-Key. */
  update(customerId: string, changes: CustomerUpdateParams): Promise<schemas.Customer>;
  /** By service id or, failing that, by externalId (as `GET /customers/{customerId}`). */
  get(customerId: string): Promise<schemas.Customer>;
  /** Exact, case-sensitive name match. */
  getByName(name: string): Promise<schemas.Customer>;
  /** One page: `{ customers, total, hasMore, nextCursor }`. */
  list(params?: CustomerListParams): Promise<schemas.CustomerList>;
  /** Every customer, oldest first: `for await (const customer of client.customers.listAll())`. */
  listAll(params?: WithoutCursor<CustomerListParams>): AutoPaginator<schemas.CustomerList, schemas.Customer>;
}

export interface ContractsApi {
  /** Creates a contract for a customer of the account. Retried when transient, with an Idempotency-Key: created once. */
  create(input: ContractCreateParams): Promise<schemas.Contract>;
  get(contractId: string): Promise<schemas.Contract>;
  /**
   * Soft-deletes the contract: it comes back with `deletedAt` and status `Terminated`, then leaves every read.
   * Retried when transient, with an Idempotency-Key: a retry gets the first answer, not a NotFoundError.
   */
  delete(contractId: string): Promise<schemas.Contract>;
  /** One page: `{ contracts, total, hasMore, nextCursor }`. */
  list(params?: ContractListParams): Promise<schemas.ContractList>;
  listAll(params?: WithoutCursor<ContractListParams>): AutoPaginator<schemas.ContractList, schemas.Contract>;
}

export interface InvoicesApi {
  get(invoiceId: string): Promise<schemas.Invoice>;
  /** One page, optionally of one customer's or one contract's invoices. */
  list(params?: InvoiceListParams): Promise<schemas.InvoiceList>;
  listAll(params?: WithoutCursor<InvoiceListParams>): AutoPaginator<schemas.InvoiceList, schemas.Invoice>;
  /** The invoice a contract's cycle at `at` (default now) would produce, stored nowhere. */
  preview(params: InvoicePreviewParams): Promise<schemas.InvoicePreview>;
}

export interface BillingApi {
  /** Generates every invoice due up to `at` (default now). Retried when transient: runs are idempotent. */
  run(params?: BillingRunParams): Promise<schemas.BillingRun>;
}

export interface MeasurementsApi {
  /** A customer's usage of a meter for a day; a second call for that day replaces the value. Retried when transient. */
  create(input: MeasurementCreateParams): Promise<schemas.Measurement>;
}

export interface CreditsApi {
  /**
   * Grants credits to a customer, effective from `effectiveAt` (default now), expiring at `expiresAt` (after now;
   * default never), burning by `priority` (0..100, default 50, lower first). Retried when transient, with an
   * Idempotency-Key: granted once.
   */
  grant(input: CreditGrantParams): Promise<schemas.CreditLedgerEntry>;
  /**
   * Voids what is left of a grant (its `Grant` entry's id): the `Void` entry. ConflictError when nothing is left.
   * Retried when transient, with an Idempotency-Key: a retry gets the first answer, not a ConflictError.
   */
  void(entryId: string): Promise<schemas.CreditLedgerEntry>;
  /** The customer's balance and the grants with money left, in burn order: `{ balance, grants }`. */
  balance(params: CreditBalanceParams): Promise<schemas.CreditBalance>;
  /** One page of a customer's ledger, oldest first: `{ entries }`; the next cursor is the last entry's id. */
  list(params: CreditListParams): Promise<schemas.CreditList>;
  listAll(params: WithoutCursor<CreditListParams>): AutoPaginator<schemas.CreditList, schemas.CreditLedgerEntry>;
}

export interface EventsApi {
  /** Up to 1000 events: `{ stored, duplicates }`. Retried when transient: `ref` keeps a repeat from storing twice. */
  ingest(events: EventInputParams[]): Promise<schemas.EventIngestResult>;
  /** One page of the events in [startTime, endTime), by timestamp: `{ events }`. */
  query(params: EventQueryParams): Promise<schemas.EventList>;
  queryAll(params: WithoutCursor<EventQueryParams>): AutoPaginator<schemas.EventList, schemas.Event>;
  /** The event and its attribution: the customer it belongs to, and whether each meter of its name counts it, else why not. */
  explain(eventId: string): Promise<schemas.EventExplanation>;
}

export interface MetersApi {
  /** Creates a meter; `key` must be unique in the account (ConflictError otherwise). Retried when transient, with an Idempotency-Key. */
  create(input: MeterCreateParams): Promise<schemas.Meter>;
  /** By service id or, failing that, by key. */
  get(meterId: string): Promise<schemas.Meter>;
  /** Changes the display name only: how a meter counts never changes. Retried when transient. */
  update(meterId: string, changes: MeterUpdateParams): Promise<schemas.Meter>;
  /** One page: `{ meters, total, hasMore, nextCursor }`. */
  list(params?: MeterListParams): Promise<schemas.MeterList>;
  listAll(params?: WithoutCursor<MeterListParams>): AutoPaginator<schemas.MeterList, schemas.Meter>;
}

export interface UsageApi {
  /** A customer's usage of a meter over UTC days [startDate, endDate), with its days and where each came from. */
  get(params: UsageParams): Promise<schemas.Usage>;
}

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
}

/** Operator calls, made with the server's ADMIN_TOKEN. None is retried: each creates or revokes a secret. */
export interface AdminClient {
  accounts: { create(name: string): Promise<schemas.AccountCreated> };
  tokens: {
    /** A new token; `scope` `read` may only read, `write` (the default) may do everything. */
    create(accountId: string, params?: { scope?: schemas.TokenScope }): Promise<schemas.NewToken>;
    /** Every token of the account, revoked ones included, oldest first; never their secrets. */
    list(accountId: string): Promise<schemas.TokenList>;
    /** A new token of the same account and scope; the old one stops working after `graceSeconds` (default 0). */
    rotate(tokenId: string, params?: { graceSeconds?: number }): Promise<schemas.NewToken>;
    revoke(tokenId: string): Promise<schemas.RevokedToken>;
  };
}
