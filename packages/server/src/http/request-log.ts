import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestTrace } from "../context.js";
import type { Logger } from "../logger.js";

/** A caller's id is kept only when it cannot garble a header or a log line (UUIDs, ULIDs, hex, trace ids). */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const traces = new WeakMap<IncomingMessage, RequestTrace>();

/**
 * Gives the request an id (the caller's `X-Request-Id` when sane, else a new UUID), echoes it in the response's
 * `X-Request-Id`, and writes one log line when the response is done. The line holds the path without the query
 * string (tRPC GET inputs and filters are caller data) and never a header or a body, so no token can reach the log.
 */
export function traceRequest(logger: Logger, req: IncomingMessage, res: ServerResponse): RequestTrace {
  const started = process.hrtime.bigint();
  const incoming = req.headers["x-request-id"];
  const id = typeof incoming === "string" && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  const trace: RequestTrace = { id, log: logger.child({ reqId: id }) };
  traces.set(req, trace);
  res.setHeader("x-request-id", trace.id);
  res.once("close", () => {
    const line = {
      method: req.method,
      path: (req.url ?? "/").split("?")[0],
      status: res.statusCode,
      durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
      ...(trace.accountId && { accountId: trace.accountId }),
      // The connection went away before the whole response was written.
      ...(!res.writableFinished && { aborted: true }),
    };
    if (res.statusCode >= 500) trace.log.error(line, "request failed");
    else trace.log.info(line, "request");
  });
  return trace;
}

/** The trace `traceRequest` gave this request. */
export function traceOf(req: IncomingMessage): RequestTrace {
  const trace = traces.get(req);
  if (!trace) throw new Error("traceRequest was not called for this request");
  return trace;
}
