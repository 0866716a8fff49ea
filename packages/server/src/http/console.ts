import { existsSync, readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { join } from "node:path";
import { sendText, streamFile } from "./static-files.js";

/** The console's build (packages/console, `vite build`): static files, served offline like /docs. */
export const CONSOLE_BUILD_DIR = join(import.meta.dirname, "..", "..", "..", "console", "dist");

/**
 * Vite names every built file `assets/<name>-<hash>.<ext>`: only such names are served, so no request path ever
 * reaches outside the build.
 */
const ASSET_PATH = /^\/console\/assets\/[\w-]+\.(\w+)$/;
const CONTENT_TYPES: Partial<Record<string, string>> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  woff2: "font/woff2",
};

/** Scripts only from this server (the chart library sets inline styles); the API is called on this origin only. */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; base-uri 'self'; frame-ancestors 'none'";

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Console not built</title></head>
<body><h1>The console is not built</h1>
<p>Build it with <code>pnpm --filter @billing/console build</code> (<code>pnpm start</code> does this when it is
missing), then reload this page.</p></body></html>
`;

function sendHtml(res: ServerResponse, status: number, html: string) {
  sendText(res, {
    status,
    contentType: "text/html; charset=utf-8",
    text: html,
    contentSecurityPolicy: CONTENT_SECURITY_POLICY,
    headers: { "cache-control": "no-cache" },
  });
}

/**
 * `GET /console` and every path below it: a hashed asset of the build, or else the app's page, whose own router
 * shows the path (a reload of `/console/customers/42` works). The page gets `<base href>` under `basePath` (the path
 * of PUBLIC_URL), from which it finds its assets and the API. Answers false for paths outside `/console` and for
 * asset paths the build does not hold, which fall through to the REST handler's 404.
 */
export function consoleServer(basePath: string, buildDir = CONSOLE_BUILD_DIR) {
  const baseTag = `<base href="${basePath}/console/">`;
  return (path: string, res: ServerResponse): boolean => {
    if (path !== "/console" && !path.startsWith("/console/")) return false;
    if (path.startsWith("/console/assets/")) {
      const contentType = CONTENT_TYPES[ASSET_PATH.exec(path)?.[1] ?? ""];
      return contentType !== undefined && serveAsset(join(buildDir, path.slice("/console/".length)), contentType, res);
    }
    const index = join(buildDir, "index.html");
    if (!existsSync(index)) {
      sendHtml(res, 404, NOT_BUILT);
      return true;
    }
    sendHtml(res, 200, readFileSync(index, "utf8").replace("<head>", `<head>\n    ${baseTag}`));
    return true;
  };
}

function serveAsset(file: string, contentType: string, res: ServerResponse): boolean {
  if (!existsSync(file)) return false;
  // The name carries the content's hash: a new build has new names.
  streamFile(res, file, contentType, "public, max-age=31536000, immutable");
  return true;
}
