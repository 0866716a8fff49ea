import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { API_VERSION } from "@billing/shared";
import type { TRPCError } from "@trpc/server";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import { createOpenApiNodeHttpHandler } from "trpc-to-openapi";
import type { Context, RateLimits } from "../context.js";
import { badRequest, DomainError } from "../domain/errors.js";
import { logIfInternal, statusOf, toErrorBody } from "../error-body.js";
import type { Logger } from "../logger.js";
import type { Repositories } from "../repositories/index.js";
import { appRouter } from "../routers/index.js";
import { allowedMethodsOf } from "./allowed-methods.js";
import { parseJsonBody, readBody } from "./body.js";
import { DOCS_PAGES, serveDocs } from "./docs.js";
import { buildOpenApiDocument } from "./openapi.js";
import { parseQuery } from "./query.js";
import { traceOf, traceRequest } from "./request-log.js";
import { successStatusByPath } from "./success-status.js";

export interface HttpAppOptions {
  repositories: Repositories;
  adminToken: string | undefined;
  maxBodyBytes: number;
  /** Public base URL written into the OpenAPI document's `servers`. */
  baseUrl: string;
  logger: Logger;
  rateLimits: RateLimits | undefined;
  billingGraceMs: number;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: endpoint URLs may use http and private addresses. */
  allowPrivateWebhookUrls: boolean;
}

const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

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
 * One HTTP server for REST (the documented paths), tRPC under /trpc, /health, /openapi.json and its reference page
 * /docs.
 */
export function createHttpServer(options: HttpAppOptions): Server {
  const contextFor = (req: IncomingMessage, res: ServerResponse, callsInRequest: number): Context => ({
    repositories: options.repositories,
    authorization: req.headers.authorization,
    adminToken: options.adminToken,
    trace: traceOf(req),
    rateLimits: options.rateLimits,
    billingGraceMs: options.billingGraceMs,
    allowPrivateWebhookUrls: options.allowPrivateWebhookUrls,
    // Node joins a repeated header into one string; only set-cookie comes as an array.
    idempotencyKey: req.headers["idempotency-key"]?.toString(),
    callsInRequest,
    setHeader: (name, value) => void res.setHeader(name, value),
  });

  const openApiDocument = buildOpenApiDocument(appRouter, options.baseUrl);
  const openApiJson = JSON.stringify(openApiDocument);
  const allowedMethods = allowedMethodsOf(openApiDocument, ["/health", "/openapi.json", ...DOCS_PAGES]);
  const createdProcedures = new Set(successStatusByPath(appRouter).map(({ procedurePath }) => procedurePath));
  const restErrors = new WeakMap<IncomingMessage, TRPCError>();

  const restHandler = createOpenApiNodeHttpHandler({
    router: appRouter,
    createContext: ({ req, res }: { req: IncomingMessage; res: ServerResponse }) => contextFor(req, res, 1),
    maxBodySize: options.maxBodyBytes,
    responseMeta: ({ paths, errors }) =>
      errors.length === 0 && paths?.some((path) => createdProcedures.has(path)) ? { status: 201 } : {},
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
    createContext: ({ req, res, info }) => contextFor(req, res, info.calls.length),
    onError: ({ error, path, req }) => logIfInternal(traceOf(req).log, error, path),
  });

  /** REST: read and check the body ourselves (size, media type, JSON), then let trpc-to-openapi route it. */
  async function handleRest(req: IncomingMessage, res: ServerResponse) {
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

  return createServer((req, res) => {
    traceRequest(options.logger, req, res);
    res.setHeader("API-Version", API_VERSION);
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (req.method === "GET" && path === "/health") return sendJson(res, 200, { status: "ok" });
    if (req.method === "GET" && path === "/openapi.json") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(openApiJson);
    }
    if (req.method === "GET" && serveDocs(path, res)) return;
    if (path.startsWith("/trpc/")) return void trpcHandler(req, res);
    const allowed = allowedMethods(path);
    if (allowed && !allowed.includes(req.method ?? "")) return sendMethodNotAllowed(res, req.method ?? "", allowed);
    handleRest(req, res).catch((cause: unknown) => {
      if (!(cause instanceof DomainError)) traceOf(req).log.error({ err: cause }, "unhandled REST error");
      const body = toErrorBody(cause);
      if (!res.headersSent) sendJson(res, statusOf(body), body);
      else res.end();
    });
  });
}
