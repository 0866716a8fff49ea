import type { ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { sendText, streamFile } from "./static-files.js";

/**
 * The reference UI is served from the installed swagger-ui-dist package, never from a CDN: the machine may be offline.
 */
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

/** The only files of the package we serve: a fixed list, so no request path ever reaches the file system. */
const PACKAGE_ASSETS: Record<string, string> = {
  "/docs/swagger-ui.css": "text/css; charset=utf-8",
  "/docs/swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "/docs/favicon-32x32.png": "image/png",
};

/** `base`: the path of PUBLIC_URL (`/billing`), or empty; already percent-encoded, so safe in an attribute. */
const page = (base: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Usage-based billing API reference</title>
  <link rel="icon" type="image/png" href="${base}/docs/favicon-32x32.png">
  <link rel="stylesheet" href="${base}/docs/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="${base}/docs/swagger-ui-bundle.js"></script>
  <script src="${base}/docs/init.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io.
const initScript = (base: string) => `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(`${base}/openapi.json`)},
  dom_id: "#reference",
  deepLinking: true,
  validatorUrl: null,
  docExpansion: "list",
});
`;

/**
 * Scripts only from this server (hence init.js rather than an inline script); Swagger UI sets inline styles and data:
 * icons.
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src " +
  "'self'; frame-ancestors 'none'";

const sendDocsText = (res: ServerResponse, contentType: string, text: string) =>
  sendText(res, { contentType, text, contentSecurityPolicy: CONTENT_SECURITY_POLICY });

/** Every path `serveDocs` answers (with `GET`). */
export const DOCS_PAGES = ["/docs", "/docs/init.js", ...Object.keys(PACKAGE_ASSETS)];

/**
 * `GET /docs`: the interactive reference of `/openapi.json`, and its assets, linked under `basePath` (the path of
 * PUBLIC_URL: a proxy serving the API under `/billing` strips it before the request reaches us). The function
 * returned answers false for any other path, so unknown `/docs/...` paths fall through to the REST handler's 404.
 */
export function docsServer(basePath: string): (path: string, res: ServerResponse) => boolean {
  const html = page(basePath);
  const init = initScript(basePath);
  return (path, res) => {
    if (path === "/docs" || path === "/docs/") {
      sendDocsText(res, "text/html; charset=utf-8", html);
      return true;
    }
    if (path === "/docs/init.js") {
      sendDocsText(res, "text/javascript; charset=utf-8", init);
      return true;
    }
    return serveAsset(path, res);
  };
}

function serveAsset(path: string, res: ServerResponse): boolean {
  const contentType = PACKAGE_ASSETS[path];
  if (!contentType) return false;
  streamFile(res, join(SWAGGER_UI_DIR, path.slice("/docs/".length)), contentType, "public, max-age=86400");
  return true;
}
