import { createReadStream } from "node:fs";
import type { ServerResponse } from "node:http";

/**
 * Sends text made in memory (a page, a script) with the content security policy of the pages that load it; extra
 * headers (`cache-control`) as given.
 */
export function sendText(
  res: ServerResponse,
  {
    status = 200,
    contentType,
    text,
    contentSecurityPolicy,
    headers = {},
  }: {
    status?: number;
    contentType: string;
    text: string;
    contentSecurityPolicy: string;
    headers?: Record<string, string>;
  },
) {
  res.writeHead(status, {
    "content-type": contentType,
    "content-length": Buffer.byteLength(text),
    ...headers,
    "content-security-policy": contentSecurityPolicy,
    "x-content-type-options": "nosniff",
  });
  res.end(text);
}

/** Streams a file of a package or a build, cached as `cacheControl` says; a failed read ends the response. */
export function streamFile(res: ServerResponse, file: string, contentType: string, cacheControl: string) {
  res.writeHead(200, {
    "content-type": contentType,
    "cache-control": cacheControl,
    "x-content-type-options": "nosniff",
  });
  createReadStream(file)
    .on("error", (error) => {
      console.error(`[billing] cannot read ${file}:`, error);
      res.destroy(error);
    })
    .pipe(res);
}
