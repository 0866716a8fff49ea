import type * as schemas from "@billing/shared";
import type { z } from "zod";
import { AUTO_PAGE_SIZE, AutoPaginator, followNextCursor } from "../pagination.js";
import type { Transport } from "../transport.js";

export type WebhookEndpointCreateParams = z.input<typeof schemas.webhookEndpointCreate>;
export type WebhookEndpointUpdateParams = z.input<typeof schemas.webhookEndpointUpdate>;
export type WebhookEndpointListParams = z.input<typeof schemas.webhookEndpointListQuery>;
export type WebhookDeliveryListParams = Omit<z.input<typeof schemas.webhookDeliveryListQuery>, "endpointId">;

export interface WebhookEndpointsApi {
  /**
   * Adds an endpoint. The answer holds its signing secret (`whsec_…`), shown this once: keep it to verify deliveries
   * with `verifyWebhook`. Retried when transient, with an Idempotency-Key: created once.
   */
  create(input: WebhookEndpointCreateParams): Promise<schemas.WebhookEndpointCreated>;
  get(endpointId: string): Promise<schemas.WebhookEndpoint>;
  /** Changes `url`, `eventTypes` (empty: every type), `description` or `status`. Retried when transient. */
  update(endpointId: string, changes: WebhookEndpointUpdateParams): Promise<schemas.WebhookEndpoint>;
  /** Removes the endpoint; its pending deliveries fail. Retried with an Idempotency-Key: a retry gets the first answer. */
  delete(endpointId: string): Promise<schemas.WebhookEndpoint>;
  /** One page: `{ endpoints, total, hasMore, nextCursor }`, oldest first. */
  list(params?: WebhookEndpointListParams): Promise<schemas.WebhookEndpointList>;
  listAll(params?: Omit<WebhookEndpointListParams, "cursor">): AutoPaginator<schemas.WebhookEndpointList, schemas.WebhookEndpoint>;
  /** A new signing secret; the old one keeps signing (a second signature) for 24 hours. Sent once, with an Idempotency-Key. */
  rotateSecret(endpointId: string): Promise<string>;
  /** One page of the endpoint's deliveries, newest first. */
  listDeliveries(endpointId: string, params?: WebhookDeliveryListParams): Promise<schemas.WebhookDeliveryList>;
  listAllDeliveries(
    endpointId: string,
    params?: Omit<WebhookDeliveryListParams, "cursor">,
  ): AutoPaginator<schemas.WebhookDeliveryList, schemas.WebhookDelivery>;
  /** Sends a delivery again now, with the same `webhook-id`. Sent once, with an Idempotency-Key. */
  resendDelivery(deliveryId: string): Promise<schemas.WebhookDelivery>;
}

export function webhookEndpointsResource({ trpc, call, callOnce }: Transport): WebhookEndpointsApi {
  const endpoints = trpc.webhookEndpoints;
  const list: WebhookEndpointsApi["list"] = (params = {}) => call((signal) => endpoints.list.query(params, { signal }), true);
  const listDeliveries: WebhookEndpointsApi["listDeliveries"] = (endpointId, params = {}) =>
    call((signal) => endpoints.deliveries.query({ ...params, endpointId }, { signal }), true);
  return {
    create: (input) => callOnce((options) => endpoints.create.mutate(input, options)),
    get: (endpointId) => call((signal) => endpoints.get.query({ endpointId }, { signal }), true).then(({ endpoint }) => endpoint),
    // Retried: setting the same fields again changes nothing.
    update: (endpointId, changes) =>
      call((signal) => endpoints.update.mutate({ ...changes, endpointId }, { signal }), true).then(({ endpoint }) => endpoint),
    delete: (endpointId) => callOnce((options) => endpoints.delete.mutate({ endpointId }, options)).then(({ endpoint }) => endpoint),
    list,
    listAll: (params = {}) =>
      new AutoPaginator((cursor) => list({ limit: AUTO_PAGE_SIZE, ...params, cursor }), (page) => page.endpoints, followNextCursor),
    rotateSecret: (endpointId) => callOnce((options) => endpoints.rotateSecret.mutate({ endpointId }, options)).then(({ secret }) => secret),
    listDeliveries,
    listAllDeliveries: (endpointId, params = {}) =>
      new AutoPaginator(
        (cursor) => listDeliveries(endpointId, { limit: AUTO_PAGE_SIZE, ...params, cursor }),
        (page) => page.deliveries,
        followNextCursor,
      ),
    resendDelivery: (deliveryId) => callOnce((options) => endpoints.resend.mutate({ deliveryId }, options)).then(({ delivery }) => delivery),
  };
}
