import type { ErrorBody } from "@billing/shared";
import { initTRPC } from "@trpc/server";
import { type TRPC_ERROR_CODE_KEY, TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import type { OpenApiMeta } from "trpc-to-openapi";
import { statusOf, toErrorBody, trpcCodeOf } from "./error-body.js";
import type { Logger } from "./logger.js";
import type { CallSlots } from "./middleware/calls-in-flight.js";
import type { ServiceMetrics } from "./observability/metrics.js";
import type { Repositories } from "./repositories/index.js";

/** What the request's log line says about it; authentication fills in `accountId`. */
export interface RequestTrace {
  readonly id: string;
  accountId?: string;
  /** For anything else logged while serving the request: each line carries its id. */
  readonly log: Logger;
}

/** Calls a token may make per window: ingestion has its own, larger allowance. */
export interface RateLimits {
  perWindow: number;
  ingestPerWindow: number;
  /** 60 in production (the limits are per minute); tests use shorter windows. */
  windowSeconds: number;
}

/** The allowance a procedure's calls count against: `ingest` (events, measurements) or `api` (every other). */
export type RateLimitBucket = "api" | "ingest";

export type SetHeader = (name: string, value: string) => void;

/** What every call sees: the data layer and the caller's request, nothing cached between calls. */
export interface Context {
  repositories: Repositories;
  authorization: string | undefined;
  adminToken: string | undefined;
  /** The request's log record: authentication adds the account to it. */
  trace: RequestTrace;
  /** The instance's metrics, for work a procedure times (billing runs). */
  metrics: ServiceMetrics;
  /** Per-token limits; undefined only where the service is embedded without them (some tests). */
  rateLimits: RateLimits | undefined;
  /** How long after an arrears cycle's end billing runs wait before invoicing it. */
  billingGraceMs: number;
  /** How long after it is due an invoice stays a draft, re-priced by every run (INVOICE_DRAFT_PERIOD). */
  invoiceDraftMs: number;
  /** Whether webhook endpoint URLs may use http and private addresses (WEBHOOK_ALLOW_PRIVATE_NETWORKS). */
  allowPrivateWebhookUrls: boolean;
  /** The request's `Idempotency-Key` header, unchecked. */
  idempotencyKey: string | undefined;
  /** Slots for calls in flight per token and per account; undefined where the service is embedded without them. */
  callSlots: CallSlots | undefined;
  /** Aborts when the client closes the connection before the response is written: calls not started then never do. */
  clientGone: AbortSignal;
  /** Calls in the HTTP request: 1 over REST, 1 or more in a tRPC batch. */
  callsInRequest: number;
  /** Sets a header of the HTTP response carrying this call. */
  setHeader: SetHeader;
}

/**
 * What a procedure says of itself besides its route: `successStatus`, the REST status of a success (201 for
 * creations; tRPC ignores it), and `rateLimit`, the allowance its calls count against (`api` when absent).
 */
/** `readOnly`: a mutation that writes nothing (a POST for its body, e.g. a simulation): the read scope may call it. */
export type Meta = OpenApiMeta<{ successStatus?: 200 | 201; rateLimit?: RateLimitBucket; readOnly?: true }>;

/** A call's error as tRPC answers it: the one error body, its status, and the JSON-RPC code of its tRPC code. */
export const trpcErrorShape = (body: ErrorBody, code: TRPC_ERROR_CODE_KEY) => ({
  message: body.message,
  code: TRPC_ERROR_CODES_BY_KEY[code],
  data: { code: body.code, httpStatus: statusOf(body), ...(body.issues && { issues: body.issues }) },
});

/**
 * The tRPC instance of the service, for trpc.ts and middleware/. Its error formatter is the tRPC edge of the error
 * model: every error a call ends with is answered with the one error body (error-body.ts) and its status.
 */
export const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    errorFormatter: ({ error }) => trpcErrorShape(toErrorBody(error), trpcCodeOf(error)),
  });
