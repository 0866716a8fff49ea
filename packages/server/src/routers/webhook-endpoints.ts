import {
  resourceRef,
  webhookDelivery,
  webhookDeliveryList,
  webhookDeliveryListQuery,
  webhookEndpoint,
  webhookEndpointCreate,
  webhookEndpointCreated,
  webhookEndpointIdParam,
  webhookEndpointList,
  webhookEndpointListQuery,
  webhookEndpointUpdate,
  webhookSecretRotated,
} from "@billing/shared";
import { z } from "zod";
import { badRequest, notFound } from "../domain/errors.js";
import { changesNothing } from "../domain/patch.js";
import { urlProblem } from "../domain/webhooks/addresses.js";
import { accountProcedure } from "../procedures.js";
import { router } from "../trpc.js";

const endpointResponse = z.object({ endpoint: webhookEndpoint });
const endpointIdInput = z.object({ endpointId: webhookEndpointIdParam });
const tags = ["webhooks"];

/** 400 naming `url` when the server's setting refuses it (https and public addresses only, unless allowed). */
function checkUrl(url: string | undefined, allowPrivateNetworks: boolean) {
  const problem = url === undefined ? undefined : urlProblem(url, allowPrivateNetworks);
  if (problem) throw badRequest(`url ${problem}`, [{ path: "url", message: problem }]);
}

const URL_RULE =
  "`url` must be https and must not be a private, loopback or link-local address unless the server runs with " +
  "WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (400 naming `url`); a name is resolved and checked at each delivery.";

export const webhookEndpointsRouter = router({
  create: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/webhook-endpoints",
        tags,
        summary: "Add a webhook endpoint; its signing secret is in the answer, and only there",
        description:
          `${URL_RULE} Events are signed with Standard Webhooks (webhook-id, webhook-timestamp, ` +
          `webhook-signature).`,
      },
      successStatus: 201,
    })
    .input(webhookEndpointCreate)
    .output(webhookEndpointCreated)
    .mutation(async ({ ctx, input }) => {
      checkUrl(input.url, ctx.allowPrivateWebhookUrls);
      return ctx.repositories.webhookEndpoints.create(ctx.accountId, input);
    }),

  list: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/webhook-endpoints",
        tags,
        summary: "List webhook endpoints, oldest first",
        description: "Without signing secrets: only creating an endpoint or rotating its secret shows one.",
      },
    })
    .input(webhookEndpointListQuery)
    .output(webhookEndpointList)
    .query(async ({ ctx, input }) => {
      const { items, ...page } = await ctx.repositories.webhookEndpoints.list(ctx.accountId, input);
      return { endpoints: items, ...page };
    }),

  get: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/webhook-endpoints/{endpointId}",
        tags,
        summary: "Get a webhook endpoint",
        description: "Without its signing secret: only creating the endpoint or rotating its secret shows one.",
      },
    })
    .input(endpointIdInput)
    .output(endpointResponse)
    .query(async ({ ctx, input }) => {
      const found = await ctx.repositories.webhookEndpoints.get(ctx.accountId, input.endpointId);
      if (!found) throw notFound("Webhook endpoint");
      return { endpoint: found };
    }),

  update: accountProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/webhook-endpoints/{endpointId}",
        tags,
        summary: "Change a webhook endpoint's url, event types, description or status",
        description: `${URL_RULE} A DISABLED endpoint is sent nothing; its pending deliveries fail.`,
      },
    })
    .input(webhookEndpointUpdate.extend(endpointIdInput.shape))
    .output(endpointResponse)
    .mutation(async ({ ctx, input: { endpointId, ...changes } }) => {
      checkUrl(changes.url, ctx.allowPrivateWebhookUrls);
      const { webhookEndpoints } = ctx.repositories;
      const endpoint = changesNothing(changes)
        ? await webhookEndpoints.get(ctx.accountId, endpointId)
        : await webhookEndpoints.update(ctx.accountId, endpointId, changes);
      if (!endpoint) throw notFound("Webhook endpoint");
      return { endpoint };
    }),

  delete: accountProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/webhook-endpoints/{endpointId}",
        tags,
        summary: "Remove a webhook endpoint",
        description: "The endpoint is removed and is sent nothing from then on.",
      },
    })
    .input(endpointIdInput)
    .output(endpointResponse)
    .mutation(async ({ ctx, input }) => {
      const deleted = await ctx.repositories.webhookEndpoints.delete(ctx.accountId, input.endpointId);
      if (!deleted) throw notFound("Webhook endpoint");
      return { endpoint: deleted };
    }),

  rotateSecret: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/webhook-endpoints/{endpointId}/rotate-secret",
        tags,
        summary: "Replace the endpoint's signing secret; the old one still signs (a second signature) for 24 hours",
        description: "So a receiver can switch secrets without refusing a delivery; the new one is shown only here.",
      },
    })
    .input(endpointIdInput)
    .output(webhookSecretRotated)
    .mutation(async ({ ctx, input }) => {
      const secret = await ctx.repositories.webhookEndpoints.rotateSecret(ctx.accountId, input.endpointId);
      if (!secret) throw notFound("Webhook endpoint");
      return { secret };
    }),

  deliveries: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/webhook-endpoints/{endpointId}/deliveries",
        tags,
        summary: "List the endpoint's deliveries, newest first",
        description: "Each delivery's status and attempts, to find what a receiver missed. Paged with `cursor`.",
      },
    })
    .input(webhookDeliveryListQuery)
    .output(webhookDeliveryList)
    .query(async ({ ctx, input: { endpointId, ...page } }) => {
      const endpoint = await ctx.repositories.webhookEndpoints.get(ctx.accountId, endpointId);
      if (!endpoint) throw notFound("Webhook endpoint");
      const { items, ...rest } = await ctx.repositories.webhookDeliveries.list(ctx.accountId, endpoint.id, page);
      return { deliveries: items, ...rest };
    }),

  resend: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/webhook-deliveries/{deliveryId}/resend",
        tags,
        summary: "Send a delivery again now, with the same webhook-id",
        description: "A pending delivery keeps its retries; a finished one gets one more attempt.",
      },
    })
    .input(z.object({ deliveryId: resourceRef }))
    .output(z.object({ delivery: webhookDelivery }))
    .mutation(async ({ ctx, input }) => {
      const delivery = await ctx.repositories.webhookDeliveries.resend(ctx.accountId, input.deliveryId);
      if (!delivery) throw notFound("Webhook delivery");
      return { delivery };
    }),
});
