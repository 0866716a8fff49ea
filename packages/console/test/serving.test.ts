import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { consoleServer } from "../../server/src/http/console.js";
import { expectError } from "../../server/test/support/assertions.js";
// Renamed: the harness's `use…` helpers are vitest set-up, not React hooks (which the linter takes them for here).
import { useTestServer as testServerOfThisFile } from "../../server/test/support/harness.js";

const server = testServerOfThisFile();
const behindProxy = testServerOfThisFile({ publicUrl: "https://billing.example/api" });

const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="(\.\/assets\/[^"]+)"/g)].map(([, url]) => url!);

describe("GET /console over HTTP", () => {
  it.each(["/console", "/console/", "/console/customers/abc", "/console/invoices/x%20y"])(
    "answers %s with the app's page, its base under /console and scripts from this server only",
    async (path) => {
      const response = await fetch(server.url + path);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(response.headers.get("content-security-policy")).toContain("script-src 'self';");
      const html = await response.text();
      expect(html).toContain('<base href="/console/">');
      expect(assetsOf(html).length).toBeGreaterThanOrEqual(2);
    },
  );

  it("serves the page's assets, named by their content's hash and cached for good", async () => {
    const html = await (await fetch(`${server.url}/console`)).text();
    for (const asset of assetsOf(html)) {
      const response = await fetch(`${server.url}/console/${asset.slice(2)}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/(javascript|css); charset=utf-8$/);
      expect(response.headers.get("cache-control")).toContain("immutable");
    }
  });

  it.each(["/console/assets/missing.js", "/console/assets/index.html", "/console/assets/%2e%2e%2findex.html"])(
    "answers %s with the documented 404: only built assets are served",
    async (path) => {
      expectError(await server.rest("GET", path), 404, "NOT_FOUND");
    },
  );

  it("writes PUBLIC_URL's path into the page's base, so a proxy may serve the console under a prefix", async () => {
    const html = await (await fetch(`${behindProxy.url}/console/customers`)).text();
    expect(html).toContain('<base href="/api/console/">');
  });

  it("says how to build the console when its build is missing", async () => {
    const serve = consoleServer("", join(import.meta.dirname, "no-such-build"));
    const bare = createServer((req, res) => {
      if (!serve(req.url ?? "/", res)) res.writeHead(418).end();
    });
    await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(bare.address() as AddressInfo).port}/console/customers`);
      expect(response.status).toBe(404);
      await expect(response.text()).resolves.toContain("pnpm --filter @billing/console build");
    } finally {
      await new Promise((resolve) => bare.close(resolve));
    }
  });
});
