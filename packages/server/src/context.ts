import type { OpenApiMeta } from "trpc-to-openapi";
import type { DomainError } from "./domain/errors.js";
import type { Logger } from "./logger.js";
import type { ServiceMetrics } from "./observability/metrics.js";
import type { Repositories } from "./repositories/index.js";

/**
 * The types of a call: what it sees (Context), what its procedure says of itself (Meta), and the per-instance limits it
 * passes through. Types only: trpc.ts builds the tRPC instance on them, middleware/ implements the limits.
 */

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

/** One kind of slots on the instance, a token's or an account's (made by middleware/calls-in-flight.ts). */
export interface Slots {
  /** The refusal a call of `key` meets at once, before any wait: every slot taken and the line full. */
  refusalOf(key: string): DomainError | undefined;
  /** Resolves with the function that frees the slot once the call is done; 429 when none frees in time. */
  enter(key: string, clientGone: AbortSignal): Promise<() => void>;
}

/** The allowances the rate limit refused on this instance, each until its window ends (spent-allowances.ts). */
export interface SpentAllowances {
  remember(tokenHash: string, bucket: RateLimitBucket, windowEndMs: number): void;
  /** When the token's allowance of `bucket` comes back (ms since the epoch), if it is spent now. */
  spentUntil(tokenHash: string, bucket: RateLimitBucket): number | undefined;
}

/** The token and account slots of an instance, and the allowances it saw spent (refused before authentication). */
export interface CallSlots {
  token: Slots;
  account: Slots;
  spentAllowances: SpentAllowances;
}

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
  /** PUBLIC_URL: the base of links the service hands out (customer portal links); absent: relative links. */
  publicUrl?: string | undefined;
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
/**
 * `readOnly`: a mutation that writes nothing (a POST for its body, e.g. a simulation): the read scope may call it.
 * `finance`: a mutation that is a finance team's work (a payment, a void, a run): the finance scope may call it.
 */
export type Meta = OpenApiMeta<{
  successStatus?: 200 | 201 | 202;
  rateLimit?: RateLimitBucket;
  readOnly?: true;
  finance?: true;
}>;
