import type { Logger } from "../logger.js";
import type { Repositories } from "../repositories/index.js";
import { receiveProviderWebhook } from "../services/collection/provider-webhooks.js";

/** `POST /providers/{provider}/webhooks/{accountId}`: a provider's event, signed over its raw body. */
export const PROVIDER_WEBHOOK_PATH = /^\/providers\/([a-z]+)\/webhooks\/([0-9a-f]{24})$/;

/**
 * A payment provider's webhook, outside tRPC and the OpenAPI document: its signature is over the raw bytes, which
 * the JSON transport would not keep, and its caller is the provider (no token: the signature authenticates it).
 */
export function receiveRawProviderWebhook(
  repositories: Repositories,
  log: Logger,
  [provider, accountId]: [string, string],
  rawBody: string,
  signature: string | undefined,
) {
  return receiveProviderWebhook({ repositories, accountId, log }, provider, rawBody, signature, new Date());
}
