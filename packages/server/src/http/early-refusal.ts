import type { IncomingMessage, ServerResponse } from "node:http";
import { bearerToken, hashToken } from "../auth/tokens.js";
import type { CallSlots } from "../context.js";
import { DomainError } from "../domain/errors.js";
import { asTrpcCode, statusOf, toErrorBody } from "../error-body.js";
import { RETRY_AFTER_SECONDS } from "../middleware/calls-in-flight.js";
import type { ServiceMetrics } from "../observability/metrics.js";
import { trpcErrorShape } from "../trpc.js";

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
  let payload: unknown = body;
  let calls = 1;
  const trpc = trpcCallsOf(req.url ?? "/");
  if (trpc) {
    calls = trpc.calls;
    if (calls > maxBatchCalls) return false;
    const answer = { error: trpcErrorShape(body, asTrpcCode(refusal.code)) };
    payload = trpc.batch ? Array.from({ length: calls }, () => answer) : answer;
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

/** The refusal of a tRPC batch of more than `maxBatchCalls` calls: each of its calls answers it. */
export function oversizedBatch(calls: number, maxBatchCalls: number) {
  const message = `A tRPC batch may hold at most ${maxBatchCalls} calls; this one has ${calls}: split it`;
  return new DomainError("PAYLOAD_TOO_LARGE", message);
}

/**
 * Answers 413 at once a tRPC batch whose path names more than MAX_BATCH_CALLS procedures (`/trpc/a,b,c?batch=1`),
 * from the request line alone: no body or input is read or parsed, no context made, so that a flood of such batches
 * costs next to nothing. Each call answers the limit, as the tRPC handler's own check (its backstop) would. Returns
 * whether it answered.
 */
export function refuseOversizedBatch(req: IncomingMessage, res: ServerResponse, maxBatchCalls: number): boolean {
  const calls = trpcCallsOf(req.url ?? "/")?.calls ?? 1;
  if (calls <= maxBatchCalls) return false;
  const key = `${calls}/${maxBatchCalls}`;
  let answer = oversizedAnswers.get(key);
  if (!answer) {
    const refusal = oversizedBatch(calls, maxBatchCalls);
    const body = toErrorBody(refusal);
    const one = JSON.stringify({ error: trpcErrorShape(body, asTrpcCode(refusal.code)) });
    answer = { status: statusOf(body), bytes: Buffer.from(`[${Array.from({ length: calls }, () => one).join(",")}]`) };
    if (oversizedAnswers.size >= OVERSIZED_ANSWERS_KEPT) oversizedAnswers.clear();
    oversizedAnswers.set(key, answer);
  }
  res.writeHead(answer.status, { "content-type": "application/json", "content-length": answer.bytes.length });
  res.end(answer.bytes);
  return true;
}

/**
 * The answers to oversized batches, by their number of calls: a flood repeats the same batch, and its answer (each of
 * its calls refused, up to a few hundred kilobytes; 2 MB for the most a request line holds) is the same every time,
 * so it is made once: four sizes are kept (a client varying the size is answered as before, each answer made anew).
 */
const OVERSIZED_ANSWERS_KEPT = 4;
const oversizedAnswers = new Map<string, { status: number; bytes: Buffer }>();

/**
 * The calls a `/trpc/` request holds, as tRPC reads them from its request line: with `?batch=1`, one per procedure of
 * the path's comma-separated list, else one. Undefined for any other path. The request line is at most Node's header
 * limit (16 KiB): counting its commas is cheap.
 */
function trpcCallsOf(url: string): { batch: boolean; calls: number } | undefined {
  const queryAt = url.indexOf("?");
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const query = queryAt === -1 ? "" : url.slice(queryAt + 1);
  if (!path.startsWith("/trpc/")) return undefined;
  const batch = new URLSearchParams(query).get("batch") === "1";
  let calls = 1;
  if (batch) for (let at = path.indexOf(","); at !== -1; at = path.indexOf(",", at + 1)) calls += 1;
  return { batch, calls };
}
