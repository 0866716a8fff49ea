import type { IncomingMessage, ServerResponse } from "node:http";
import { bearerToken, hashToken } from "../auth/tokens.js";
import { trpcErrorShape } from "../context.js";
import { statusOf, toErrorBody } from "../error-body.js";
import { type CallSlots, RETRY_AFTER_SECONDS } from "../middleware/calls-in-flight.js";
import type { ServiceMetrics } from "../observability/metrics.js";

/**
 * Answers 429 at once, before its body is read or tRPC or the REST router sees it, a request whose token's slots
 * would refuse every one of its calls (every slot taken and the line full): a client flooding the service sends such
 * requests by the hundred a second, and each must cost the other accounts as little as possible. The answer is the
 * one the token middleware (middleware/calls-in-flight.ts) would give; every other request goes on to it. A tRPC
 * batch too large for MAX_BATCH_CALLS goes on too, to its 413. Returns whether it answered.
 */
export function refuseEarly(
  req: IncomingMessage,
  res: ServerResponse,
  { callSlots, maxBatchCalls, metrics }: { callSlots: CallSlots; maxBatchCalls: number; metrics: ServiceMetrics },
): boolean {
  const token = bearerToken(req.headers.authorization);
  const refusal = token && callSlots.token.refusalOf(hashToken(token));
  if (!refusal) return false;
  const body = toErrorBody(refusal);
  const url = new URL(req.url ?? "/", "http://localhost");
  let payload: unknown = body;
  let calls = 1;
  if (url.pathname.startsWith("/trpc/")) {
    // As tRPC reads a batch: `?batch=1` and the procedures' paths joined by commas.
    const batch = url.searchParams.get("batch") === "1";
    calls = batch ? url.pathname.split(",").length : 1;
    if (calls > maxBatchCalls) return false;
    const answer = { error: trpcErrorShape(body, refusal.code) };
    payload = batch ? Array.from({ length: calls }, () => answer) : answer;
  }
  metrics.callsRefused.inc({ reason: "slots" }, calls);
  const text = JSON.stringify(payload);
  res.writeHead(statusOf(body), {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "retry-after": String(RETRY_AFTER_SECONDS),
  });
  res.end(text);
  return true;
}
