import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { isPrivateAddress, urlProblem } from "../domain/webhooks/addresses.js";

export interface WebhookPost {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  /** Aborted when the worker stops: the request is cut and the attempt given back. */
  stop: AbortSignal;
}

/** What an attempt got: the status (null without an answer) and, without one, why. */
export interface PostOutcome {
  statusCode: number | null;
  error: string | null;
}

/**
 * The address lookup of the request itself, so the address checked is the address connected to: a name resolving
 * to a public address at one moment and a private one the next (DNS rebinding) cannot slip between a check and the
 * connection. Every address of the name must be public.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, "", 0);
    const refused = addresses.find(({ address }) => isPrivateAddress(address));
    if (refused) return callback(new Error(`${hostname} resolves to ${refused.address}, a private address`), "", 0);
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    if (!first) return callback(new Error(`${hostname} has no address`), "", 0);
    callback(null, first.address, first.family);
  });
};

/** POSTs one attempt; redirects are not followed (a 3xx is a failure, as Standard Webhooks advises). Never throws. */
export function postWebhook({
  url,
  body,
  headers,
  timeoutMs,
  allowPrivateNetworks,
  stop,
}: WebhookPost): Promise<PostOutcome> {
  // Checked again at delivery: the setting may have changed since the endpoint was saved.
  const problem = urlProblem(url, allowPrivateNetworks);
  if (problem) return Promise.resolve({ statusCode: null, error: `url ${problem}` });
  const timeout = AbortSignal.timeout(timeoutMs);
  const target = new URL(url);
  const request = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const outgoing = request(
      target,
      {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "billing-webhooks/1", ...headers },
        signal: AbortSignal.any([stop, timeout]),
        ...(!allowPrivateNetworks && { lookup: publicOnlyLookup }),
        agent: false,
      },
      (response) => {
        // The status is the answer; the body is read and dropped.
        response.resume();
        resolve({ statusCode: response.statusCode ?? null, error: null });
      },
    );
    outgoing.on("error", (error) => {
      const reason = timeout.aborted ? `no answer within ${timeoutMs} ms` : stop.aborted ? "stopped" : error.message;
      resolve({ statusCode: null, error: reason });
    });
    outgoing.end(body);
  });
}
