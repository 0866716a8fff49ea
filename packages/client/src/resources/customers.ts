import type { customerCreate, customerListQuery, customerUpdate } from "@billing/shared";
import { AUTO_PAGE_SIZE, AutoPaginator, followNextCursor, type WithoutCursor } from "../pagination.js";
import type { KeyedRequestOptions, RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type { Customer, CustomerList, Entitlement, Input } from "../types.js";
import { type CustomerStreamEvent, type CustomerStreamOptions, customerStream } from "./customer-stream.js";

export type CustomerCreateParams = Input<typeof customerCreate>;
export type CustomerUpdateParams = Input<typeof customerUpdate>;
export type CustomerListParams = Input<typeof customerListQuery>;

export interface CustomersApi {
  /** Creates a customer; `name` must be unique in the account (ConflictError otherwise). Keyed: created once. */
  create(input: CustomerCreateParams, options?: KeyedRequestOptions): Promise<Customer>;
  /** Replaces the fields given, keeps the others. Keyed. */
  update(customerId: string, changes: CustomerUpdateParams, options?: KeyedRequestOptions): Promise<Customer>;
  /** By service id or, failing that, by externalId (as `GET /customers/{customerId}`). */
  get(customerId: string, options?: RequestOptions): Promise<Customer>;
  /** Exact, case-sensitive name match. */
  getByName(name: string, options?: RequestOptions): Promise<Customer>;
  /** One page: `{ customers, total, hasMore, nextCursor }`. */
  list(params?: CustomerListParams, options?: RequestOptions): Promise<CustomerList>;
  /** Every customer, oldest first: `for await (const customer of client.customers.listAll())`. */
  listAll(params?: WithoutCursor<CustomerListParams>, options?: RequestOptions): AutoPaginator<CustomerList, Customer>;
  /** May the customer use each meter its contracts in force name now, and how much is left. */
  entitlements(customerId: string, options?: RequestOptions): Promise<Entitlement[]>;
  /** One meter's entitlement (NotFoundError for an unknown customer or meter). */
  entitlement(customerId: string, meterKey: string, options?: RequestOptions): Promise<Entitlement>;
  /**
   * The customer's usage, credit balances and invoices, live (`GET /customers/{customerId}/stream`, Server-Sent
   * Events): each event the whole new state of one kind (`reset`: all). Ends when `signal` aborts; reconnect with
   * the last event's `id` as `lastEventId` to be sent only what changed since.
   */
  stream(customerId: string, options?: CustomerStreamOptions): AsyncGenerator<CustomerStreamEvent>;
}

export function customersResource(transport: Transport): CustomersApi {
  const { trpc, call } = transport;
  const list: CustomersApi["list"] = (params = {}, options) =>
    call("safe", (attempt) => trpc.customers.list.query(params, attempt), options);
  return {
    create: (input, options) =>
      call("keyed", (attempt) => trpc.customers.create.mutate(input, attempt), options).then((r) => r.customer),
    update: (customerId, changes, options) =>
      call("keyed", (attempt) => trpc.customers.update.mutate({ ...changes, customerId }, attempt), options).then(
        (r) => r.customer,
      ),
    get: (customerId, options) =>
      call("safe", (attempt) => trpc.customers.get.query({ customerId }, attempt), options).then((r) => r.customer),
    getByName: (name, options) =>
      call("safe", (attempt) => trpc.customers.getByName.query({ name }, attempt), options).then((r) => r.customer),
    list,
    listAll: (params = {}, options) =>
      new AutoPaginator(
        (cursor) => list({ limit: AUTO_PAGE_SIZE, ...params, cursor }, options),
        (page) => page.customers,
        followNextCursor,
      ),
    entitlements: (customerId, options) =>
      call("safe", (attempt) => trpc.entitlements.list.query({ customerId }, attempt), options).then(
        (r) => r.entitlements,
      ),
    entitlement: (customerId, meterKey, options) =>
      call("safe", (attempt) => trpc.entitlements.get.query({ customerId, meterKey }, attempt), options).then(
        (r) => r.entitlement,
      ),
    stream: customerStream(transport),
  };
}
