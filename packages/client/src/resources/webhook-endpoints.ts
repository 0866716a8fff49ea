import type * as schemas from "@billing/shared";
import { AUTO_PAGE_SIZE, AutoPaginator, followNextCursor, type WithoutCursor } from "../pagination.js";
import type { KeyedRequestOptions, RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type {
  Input,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookEndpointList,
} from "../types.js";

export type WebhookEndpointCreateParams = Input<typeof schemas.webhookEndpointCreate>;
export type WebhookEndpointUpdateParams = Input<typeof schemas.webhookEndpointUpdate>;
export type WebhookEndpointListParams = Input<typeof schemas.webhookEndpointListQuery>;
export type WebhookDeliveryListParams = Omit<Input<typeof schemas.webhookDeliveryListQuery>, "endpointId">;

export interface WebhookEndpointsApi {
  /**
   * Adds an endpoint. The answer holds its signing secret (`whsec_…`), shown this once: keep it to verify deliveries
   * with `verifyWebhook`. Keyed: created once.
   */
  create(input: WebhookEndpointCreateParams, options?: KeyedRequestOptions): Promise<WebhookEndpointCreated>;
  get(endpointId: string, options?: RequestOptions): Promise<WebhookEndpoint>;
  /** Changes `url`, `eventTypes` (empty: every type), `description` or `status`. Safe: the same change twice is one. */
  update(endpointId: string, changes: WebhookEndpointUpdateParams, options?: RequestOptions): Promise<WebhookEndpoint>;
  /** Removes the endpoint; its pending deliveries fail. Keyed: a retry gets the first answer. */
  delete(endpointId: string, options?: KeyedRequestOptions): Promise<WebhookEndpoint>;
  /** One page: `{ endpoints, total, hasMore, nextCursor }`, oldest first. */
  list(params?: WebhookEndpointListParams, options?: RequestOptions): Promise<WebhookEndpointList>;
  listAll(
    params?: WithoutCursor<WebhookEndpointListParams>,
    options?: RequestOptions,
  ): AutoPaginator<WebhookEndpointList, WebhookEndpoint>;
  /** A new signing secret; the old one keeps signing (a second signature) for 24 hours. Keyed: rotated once. */
  rotateSecret(endpointId: string, options?: KeyedRequestOptions): Promise<string>;
  /** One page of the endpoint's deliveries, newest first. */
  listDeliveries(
    endpointId: string,
    params?: WebhookDeliveryListParams,
    options?: RequestOptions,
  ): Promise<WebhookDeliveryList>;
  listAllDeliveries(
    endpointId: string,
    params?: WithoutCursor<WebhookDeliveryListParams>,
    options?: RequestOptions,
  ): AutoPaginator<WebhookDeliveryList, WebhookDelivery>;
  /** Sends a delivery again now, with the same `webhook-id`. Keyed: resent once. */
  resendDelivery(deliveryId: string, options?: KeyedRequestOptions): Promise<WebhookDelivery>;
}

export function webhookEndpointsResource({ trpc, call }: Transport): WebhookEndpointsApi {
  const endpoints = trpc.webhookEndpoints;
  const list: WebhookEndpointsApi["list"] = (params = {}, options) =>
    call("safe", (attempt) => endpoints.list.query(params, attempt), options);
  const listDeliveries: WebhookEndpointsApi["listDeliveries"] = (endpointId, params = {}, options) =>
    call("safe", (attempt) => endpoints.deliveries.query({ ...params, endpointId }, attempt), options);
  return {
    create: (input, options) => call("keyed", (attempt) => endpoints.create.mutate(input, attempt), options),
    get: (endpointId, options) =>
      call("safe", (attempt) => endpoints.get.query({ endpointId }, attempt), options).then((r) => r.endpoint),
    update: (endpointId, changes, options) =>
      call("safe", (attempt) => endpoints.update.mutate({ ...changes, endpointId }, attempt), options).then(
        (r) => r.endpoint,
      ),
    delete: (endpointId, options) =>
      call("keyed", (attempt) => endpoints.delete.mutate({ endpointId }, attempt), options).then((r) => r.endpoint),
    list,
    listAll: (params = {}, options) =>
      new AutoPaginator(
        (cursor) => list({ limit: AUTO_PAGE_SIZE, ...params, cursor }, options),
        (page) => page.endpoints,
        followNextCursor,
      ),
    rotateSecret: (endpointId, options) =>
      call("keyed", (attempt) => endpoints.rotateSecret.mutate({ endpointId }, attempt), options).then((r) => r.secret),
    listDeliveries,
    listAllDeliveries: (endpointId, params = {}, options) =>
      new AutoPaginator(
        (cursor) => listDeliveries(endpointId, { limit: AUTO_PAGE_SIZE, ...params, cursor }, options),
        (page) => page.deliveries,
        followNextCursor,
      ),
    resendDelivery: (deliveryId, options) =>
      call("keyed", (attempt) => endpoints.resend.mutate({ deliveryId }, attempt), options).then((r) => r.delivery),
  };
}
