import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { API_VERSION } from "@billing/shared";
import type { TRPCError } from "@trpc/server";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import { createOpenApiNodeHttpHandler } from "trpc-to-openapi";
import { bearerToken, secretsEqual } from "../auth/tokens.js";
import type { Context, RateLimits } from "../context.js";
import { badRequest, DomainError, unauthorized } from "../domain/errors.js";
import { logIfInternal, statusOf, toErrorBody } from "../error-body.js";
import type { Logger } from "../logger.js";
import { type CallLimits, createCallSlots } from "../middleware/calls-in-flight.js";
import type { ServiceMetrics } from "../observability/metrics.js";
import type { ReadinessReport } from "../observability/readiness.js";
import { asRequestWork } from "../observability/work-origin.js";
import type { Hooks } from "../repositories/hooks.js";
import type { Repositories } from "../repositories/index.js";
import { appRouter } from "../routers/index.js";
import { PROVIDER_WEBHOOK_PATH, receiveRawProviderWebhook } from "../routers/provider-webhooks.js";
import { routesOf } from "./allowed-methods.js";
import { parseJsonBody, readBody } from "./body.js";
import { consoleServer } from "./console.js";
import { type CustomerStreamSettings, customerStreamRequestOf, customerStreams } from "./customer-stream.js";
import { DOCS_PAGES, docsServer } from "./docs.js";
import { documentRequestOf, serveDocument } from "./documents.js";
import { oversizedBatch, refuseEarly, refuseOversizedBatch } from "./early-refusal.js";
import { exportFileRequestOf, serveExportFile } from "./export-file.js";
import { FAVICON } from "./favicon.js";
import { buildOpenApiDocument } from "./openapi.js";
import { servePortal } from "./portal.js";
import { parseQuery } from "./query.js";
import { traceOf, traceRequest } from "./request-log.js";
import { successStatusByPath } from "./success-status.js";

export interface HttpAppOptions {
  repositories: Repositories;
  adminToken: string | undefined;
  /** METRICS_TOKEN: the bearer token `/metrics` asks for; open without one. */
  metricsToken: string | undefined;
  metrics: ServiceMetrics;
  /** What `/ready` reports: 200 when ready, 503 otherwise. */
  readiness: () => Promise<ReadinessReport>;
  maxBodyBytes: number;
  /** PUBLIC_URL: written into the OpenAPI document's `servers`, and its path prefixes the links of /docs. */
  publicUrl: string | undefined;
  logger: Logger;
  rateLimits: RateLimits | undefined;
  billingGraceMs: number;
  invoiceDraftMs: number;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: endpoint URLs may use http and private addresses. */
  allowPrivateWebhookUrls: boolean;
  /** MAX_BATCH_CALLS: a tRPC batch with more calls is refused whole (413) before any of them runs. */
  maxBatchCalls: number;
  /** Calls in flight per token and per account; no cap when undefined. */
  callLimits: CallLimits | undefined;
  hooks: Hooks;
  /** GET /customers/{customerId}/stream: its polling, heartbeats and open connections per account. */
  customerStream: CustomerStreamSettings;
}

const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

/** The service's own pages for operators and readers, outside the document; each answers `GET` only. */
const OWN_PAGES = ["/health", "/ready", "/metrics", "/openapi.json", FAVICON.path, ...DOCS_PAGES];

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

/** 405 for a method a known path does not serve, before authentication: the document already tells as much. */
function sendMethodNotAllowed(res: ServerResponse, method: string, allowed: string[]) {
  const message = `${method} is not allowed here; allowed: ${allowed.join(", ")}`;
  const body = toErrorBody(new DomainError("METHOD_NOT_SUPPORTED", message));
  sendJson(res, statusOf(body), body, { allow: allowed.join(", ") });
}

/**
 * Aborts when the connection closes before the response has been written in full, with the error a call that
 * stops for it ends with (nobody receives it; it is not an internal error).
 */
function clientGoneSignal(res: ServerResponse, hooks: Hooks): AbortSignal {
  const controller = new AbortController();
  res.once("close", () => {
    if (res.writableFinished) return;
    controller.abort(new DomainError("BAD_REQUEST", "The client closed the request before its answer"));
    void hooks("calls.clientGone", "request");
  });
  return controller.signal;
}

/**
 * A batch is refused whole before anything runs or counts: each of its calls answers 413, so that one request cannot
 * hold an unbounded number of calls (every call of a batch still takes its own slot and counts on its own). The
 * request line refuses it first (early-refusal.ts); this is the backstop for whatever tRPC counts otherwise.
 */
function refuseBatchOverLimit(calls: number, maxBatchCalls: number) {
  if (calls > maxBatchCalls) throw oversizedBatch(calls, maxBatchCalls);
}

/**
 * The route label of a tRPC request: `/trpc/<procedure>` for one call of a procedure the router has, `/trpc/(batch)`
 * for a batch of several, `/trpc/(unknown)` for any other name. Bounded by the router's procedures: a name a caller
 * makes up never becomes a series of its own.
 */
function trpcRouteLabel(url: string, procedures: ReadonlySet<string>): string {
  const [path = "", query = ""] = url.slice("/trpc/".length).split("?");
  let names: string[];
  try {
    const decoded = decodeURIComponent(path.replace(/^\/+|\/+$/g, ""));
    names = new URLSearchParams(query).get("batch") === "1" ? decoded.split(",") : [decoded];
  } catch {
    return "/trpc/(unknown)";
  }
  if (names.length > 1) return "/trpc/(batch)";
  const [name = ""] = names;
  return procedures.has(name) ? `/trpc/${name}` : "/trpc/(unknown)";
}

/**
 * One HTTP server for REST (the documented paths), tRPC under /trpc, /health, /openapi.json and its reference page
 * /docs.
 */
export function createHttpServer(options: HttpAppOptions): Server {
  const callSlots = options.callLimits && createCallSlots(options.callLimits, options.hooks, options.metrics);
  const serveStream = customerStreams(options.customerStream);
  const contextFor = (req: IncomingMessage, res: ServerResponse, callsInRequest: number): Context => ({
    repositories: options.repositories,
    authorization: req.headers.authorization,
    adminToken: options.adminToken,
    trace: traceOf(req),
    metrics: options.metrics,
    rateLimits: options.rateLimits,
    billingGraceMs: options.billingGraceMs,
    invoiceDraftMs: options.invoiceDraftMs,
    allowPrivateWebhookUrls: options.allowPrivateWebhookUrls,
    publicUrl: options.publicUrl,
    // Node joins a repeated header into one string; only set-cookie comes as an array.
    idempotencyKey: req.headers["idempotency-key"]?.toString(),
    callSlots,
    clientGone: clientGoneSignal(res, options.hooks),
    callsInRequest,
    setHeader: (name, value) => void res.setHeader(name, value),
  });

  // Without PUBLIC_URL, `/`: a server relative to wherever the document was fetched from, never the bind address.
  const openApiDocument = buildOpenApiDocument(appRouter, options.publicUrl ?? "/");
  const publicPath = options.publicUrl ? new URL(options.publicUrl).pathname.replace(/\/$/, "") : "";
  const serveDocs = docsServer(publicPath);
  const serveConsole = consoleServer(publicPath);
  const openApiJson = JSON.stringify(openApiDocument);
  const routeOf = routesOf(openApiDocument, OWN_PAGES);
  const procedures = new Set(Object.keys(appRouter._def.procedures));
  const successStatuses = new Map(
    successStatusByPath(appRouter).map(({ procedurePath, status }) => [procedurePath, status]),
  );
  const restErrors = new WeakMap<IncomingMessage, TRPCError>();

  const restHandler = createOpenApiNodeHttpHandler({
    router: appRouter,
    createContext: ({ req, res }: { req: IncomingMessage; res: ServerResponse }) => contextFor(req, res, 1),
    maxBodySize: options.maxBodyBytes,
    responseMeta: ({ paths, errors }) => {
      const status = errors.length === 0 && paths?.map((path) => successStatuses.get(path)).find(Boolean);
      return status ? { status } : {};
    },
    onError: ({ error, req, path }) => {
      logIfInternal(traceOf(req as IncomingMessage).log, error, path);
      restErrors.set(req as IncomingMessage, error);
    },
  } as Parameters<typeof createOpenApiNodeHttpHandler>[0]);

  const trpcHandler = createHTTPHandler({
    router: appRouter,
    basePath: "/trpc/",
    // The SDK sends queries as POST too, so that no input is ever too long for a URL.
    allowMethodOverride: true,
    maxBodySize: options.maxBodyBytes,
    createContext: ({ req, res, info }) => {
      refuseBatchOverLimit(info.calls.length, options.maxBatchCalls);
      return contextFor(req, res, info.calls.length);
    },
    onError: ({ error, path, req }) => logIfInternal(traceOf(req).log, error, path),
  });

  /** REST: read and check the body ourselves (size, media type, JSON), then let trpc-to-openapi route it. */
  async function handleRest(req: IncomingMessage, res: ServerResponse, template: string | undefined) {
    const url = new URL(req.url ?? "/", "http://localhost");
    try {
      decodeURIComponent(url.pathname);
    } catch {
      throw badRequest("The request path is not valid percent-encoding");
    }
    Object.assign(req, { query: parseQuery(url) });
    if (BODY_METHODS.has(req.method ?? "")) {
      const body = parseJsonBody(req, await readBody(req, options.maxBodyBytes));
      // Path parameters are merged into the body, so anything but an object (`true`, `[]`) would pass as `{}`.
      if (typeof body !== "object" || body === null || Array.isArray(body)) {
        throw badRequest("The request body must be a JSON object");
      }
      refusePathParametersInBody(template, body);
      Object.assign(req, { body });
      req.headers["content-type"] = "application/json";
    }
    // The library writes its own error body; swap it for ours, built from the same error.
    const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
    res.end = ((chunk?: unknown) => {
      const error = restErrors.get(req);
      if (!error) return end(chunk);
      const errorBody = toErrorBody(error);
      res.statusCode = statusOf(errorBody);
      return end(JSON.stringify(errorBody));
    }) as ServerResponse["end"];
    await restHandler(req, res);
  }

  /** A payment provider's signed event (routers/provider-webhooks.ts): the raw body is what its signature covers. */
  async function receiveWebhook(req: IncomingMessage, res: ServerResponse, [, provider, accountId]: string[]) {
    try {
      const raw = (await readBody(req, options.maxBodyBytes)).toString("utf8");
      const signature = req.headers["stripe-signature"];
      const answer = await receiveRawProviderWebhook(
        options.repositories,
        traceOf(req).log,
        [provider as string, accountId as string],
        raw,
        typeof signature === "string" ? signature : undefined,
      );
      sendJson(res, 200, answer);
    } catch (cause) {
      if (!(cause instanceof DomainError)) traceOf(req).log.error({ err: cause }, "provider webhook failed");
      const body = toErrorBody(cause);
      if (!res.headersSent) sendJson(res, statusOf(body), body);
    }
  }

  /** Prometheus's text format, for whoever holds METRICS_TOKEN (anyone when it is not set). */
  async function serveMetrics(req: IncomingMessage, res: ServerResponse) {
    const token = bearerToken(req.headers.authorization);
    if (options.metricsToken && !(token && secretsEqual(token, options.metricsToken))) {
      const body = toErrorBody(unauthorized("Send the METRICS_TOKEN as `Authorization: Bearer <token>`"));
      return sendJson(res, statusOf(body), body, { "www-authenticate": "Bearer" });
    }
    const text = await options.metrics.registry.metrics();
    res.writeHead(200, { "content-type": options.metrics.registry.contentType, "cache-control": "no-store" });
    res.end(text);
  }

  function handleRequest(req: IncomingMessage, res: ServerResponse) {
    traceRequest(options.logger, req, res);
    res.setHeader("API-Version", API_VERSION);
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const route = path.startsWith("/trpc/") ? undefined : routeOf(path);
    // A template or a procedure's name, never the raw path: ids in paths would make a series per customer.
    const routeLabel = path.startsWith("/trpc/")
      ? trpcRouteLabel(req.url ?? "", procedures)
      : (route?.template ?? "unmatched");
    const endTimer = options.metrics.httpRequests.startTimer({ method: req.method ?? "", route: routeLabel });
    res.once("close", () => endTimer({ status: res.statusCode }));
    if (req.method === "GET" && path === "/health") return sendJson(res, 200, { status: "ok" });
    if (req.method === "GET" && path === "/ready") {
      return void options
        .readiness()
        .then((report) =>
          sendJson(res, report.status === "ready" ? 200 : 503, report, { "cache-control": "no-store" }),
        );
    }
    if (req.method === "GET" && path === "/metrics") {
      return void serveMetrics(req, res).catch((error: unknown) => {
        traceOf(req).log.error({ err: error }, "could not collect the metrics");
        if (!res.headersSent) sendJson(res, 500, toErrorBody(error));
      });
    }
    if (req.method === "GET" && path === FAVICON.path) {
      res.writeHead(200, { "content-type": FAVICON.contentType, "cache-control": "public, max-age=86400" });
      return res.end(FAVICON.body);
    }
    if (req.method === "GET" && path === "/openapi.json") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(openApiJson);
    }
    if (req.method === "GET" && serveDocs(path, res)) return;
    if (req.method === "GET" && serveConsole(path, res)) return;
    if (servePortal(req, res, path, { repositories: options.repositories, log: traceOf(req).log, publicPath })) return;
    if (route && !route.methods.includes(req.method ?? "")) {
      return sendMethodNotAllowed(res, req.method ?? "", route.methods);
    }
    if (path.startsWith("/trpc/") && refuseOversizedBatch(req, res, options.maxBatchCalls)) return;
    const callsOfTheService = path.startsWith("/trpc/") || route !== undefined;
    if (
      callsOfTheService &&
      callSlots &&
      refuseEarly(req, res, { callSlots, maxBatchCalls: options.maxBatchCalls, metrics: options.metrics })
    ) {
      return;
    }
    if (path.startsWith("/trpc/")) return void trpcHandler(req, res);
    const providerWebhook = req.method === "POST" ? PROVIDER_WEBHOOK_PATH.exec(path) : null;
    if (providerWebhook) return void receiveWebhook(req, res, providerWebhook);
    const documentRequest = documentRequestOf(path);
    if (documentRequest) return void serveDocument(res, contextFor(req, res, 1), documentRequest);
    const streamed = customerStreamRequestOf(req.method, path);
    if (streamed !== undefined) return void serveStream(req, res, contextFor(req, res, 1), streamed);
    const exportFile = exportFileRequestOf(req.method, path);
    if (exportFile !== undefined) return void serveExportFile(res, contextFor(req, res, 1), exportFile);
    handleRest(req, res, route?.template).catch((cause: unknown) => {
      if (!(cause instanceof DomainError)) traceOf(req).log.error({ err: cause }, "unhandled REST error");
      const body = toErrorBody(cause);
      if (!res.headersSent) sendJson(res, statusOf(body), body);
      else res.end();
    });
  }

  // Every database command sent while answering counts as a request's (billing_db_commands_total's origin).
  return createServer((req, res) => asRequestWork(() => handleRequest(req, res)));
}

/**
 * A body naming a parameter its path gives (`{"invoiceId": …}` to `/invoices/{invoiceId}/payments`) is refused, as
 * any unknown field is: the library would let the path's value win in silence, whatever the body said.
 */
function refusePathParametersInBody(template: string | undefined, body: object) {
  const named = [...(template ?? "").matchAll(/\{(\w+)\}/g)]
    .map(([, name]) => name as string)
    .filter((name) => Object.hasOwn(body, name));
  if (named.length === 0) return;
  const issues = named.map((name) => ({ path: name, message: "unknown field: the path gives it" }));
  throw badRequest(`Invalid input: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ")}`, issues);
}
