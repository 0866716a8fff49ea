import type { Server, ServerResponse } from "node:http";

/**
 * Prepares `server` for a graceful close and returns the function that does it: stop accepting connections, let
 * the requests already received finish, and close each connection once its response is written (Node keeps
 * keep-alive connections open after `server.close()`, and a client would keep sending on them). Connections still
 * open after `gracePeriodMs` are cut. Resolves with whether any had to be cut.
 */
export function gracefulCloser(server: Server): (gracePeriodMs: number) => Promise<{ forced: boolean }> {
  const unanswered = new Set<ServerResponse>();
  let closing = false;
  const closeAfterResponse = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader("connection", "close");
  };
  // First listener, so that the header is set before any handler writes the response.
  server.prependListener("request", (_req, res: ServerResponse) => {
    if (closing) return closeAfterResponse(res);
    unanswered.add(res);
    res.once("close", () => unanswered.delete(res));
  });

  return async (gracePeriodMs) => {
    closing = true;
    unanswered.forEach(closeAfterResponse);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Keep-alive connections with no request in progress would otherwise wait for their idle timeout.
    server.closeIdleConnections();
    let forced = false;
    const deadline = setTimeout(() => {
      forced = true;
      server.closeAllConnections();
    }, gracePeriodMs);
    await closed;
    clearTimeout(deadline);
    return { forced };
  };
}
