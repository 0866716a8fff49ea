import type { IncomingMessage } from "node:http";
import { badRequest, DomainError } from "../domain/errors.js";
import { refuseDeepNesting } from "../middleware/input-depth.js";

const tooLarge = (limit: number) =>
  new DomainError("PAYLOAD_TOO_LARGE", `Request body exceeds the limit of ${limit} bytes`);

/**
 * How much of a refused body is still read, and dropped, after its 413 has been sent: a client that sends its whole
 * body before reading (as Python's requests does) finds its answer instead of a reset connection, which closing the
 * socket under its upload would give it. Past this the connection is cut: no request makes unbounded work.
 */
const DISCARDED_BODY_LIMIT = 64 * 1024 * 1024;

/**
 * Reads the whole body, refusing more than `limit` bytes with a 413 at once. The connection stays open while the
 * rest of a refused body is read and dropped (up to DISCARDED_BODY_LIMIT), so the framing stays whole and the
 * connection can carry the next request.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    const refuse = () => {
      refused = true;
      chunks.length = 0;
      reject(tooLarge(limit)); // later calls are no-ops: a promise settles once
    };
    if (Number(req.headers["content-length"]) > limit) refuse();
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit + DISCARDED_BODY_LIMIT) return void req.socket.destroy();
      if (size > limit) refuse();
      if (!refused) chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Bytes that are not UTF-8 are refused, not read as U+FFFD (which would be stored in their place). */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** JSON bodies only (any charset parameter is fine); an empty body reads as `{}`. */
export function parseJsonBody(req: IncomingMessage, raw: Buffer): unknown {
  const contentType = req.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
  if (raw.length === 0 && contentType === undefined) return {};
  if (contentType !== "application/json") {
    const message = "Request bodies must be JSON: send `Content-Type: application/json`";
    throw new DomainError("UNSUPPORTED_MEDIA_TYPE", message);
  }
  if (raw.length === 0) return {};
  let text: string;
  try {
    text = UTF8.decode(raw);
  } catch {
    throw badRequest("Request body is not valid UTF-8");
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw badRequest("Request body is not valid JSON");
  }
  refuseDeepNesting(body);
  return body;
}
