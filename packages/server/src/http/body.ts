import type { IncomingMessage } from "node:http";
import { badRequest, DomainError } from "../domain/errors.js";
import { refuseDeepNesting } from "../middleware/input-depth.js";

const tooLarge = (limit: number) =>
  new DomainError("PAYLOAD_TOO_LARGE", `Request body exceeds the limit of ${limit} bytes`);

/**
 * Reads the whole body, refusing more than `limit` bytes. Past the limit the rest is drained, not
 * buffered, so the 413 reaches the client instead of a reset connection.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  if (Number(req.headers["content-length"]) > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      chunks.length = 0;
      reject(tooLarge(limit)); // later calls are no-ops: a promise settles once
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
