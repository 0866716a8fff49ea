import { once } from "node:events";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { configSchema } from "../src/config.js";
import { useTestServer } from "./support/harness.js";
import { startTestServer } from "./support/server.js";

/** PUBLIC_URL (issue 29): what /openapi.json and /docs tell callers about where the API is. */
const direct = useTestServer();

/** A reverse proxy serving the API under `/billing`, stripping the prefix as nginx's `proxy_pass …/;` does. */
async function prefixProxy(prefix: string) {
  let target = "";
  const proxy = createServer((req, res) => {
    const url = req.url ?? "/";
    if (!url.startsWith(`${prefix}/`)) return void res.writeHead(404).end();
    const upstream = request(`${target}${url.slice(prefix.length)}`, { method: req.method, headers: req.headers });
    upstream.on("response", (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  proxy.listen(0, "127.0.0.1");
  await once(proxy, "listening");
  afterAll(() => new Promise((resolve) => proxy.close(resolve)));
  return {
    publicUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${prefix}`,
    forwardTo: (url: string) => (target = url),
  };
}

describe("PUBLIC_URL", () => {
  it("is unset by default: the document's server is `/`, relative to wherever the document was read", async () => {
    const document = await direct.rest("GET", "/openapi.json");
    expect(document.body.servers).toEqual([{ url: "/" }]);
    const page = await direct.rest("GET", "/docs");
    expect(page.body).toContain('<script src="/docs/init.js">');
    expect((await direct.rest("GET", "/docs/init.js")).body).toContain('url: "/openapi.json"');
  });

  it("behind a proxy under a path, names the document's server and the links of /docs, which all work", async () => {
    const proxy = await prefixProxy("/billing");
    const server = await startTestServer({ publicUrl: proxy.publicUrl });
    try {
      proxy.forwardTo(server.url);
      const get = (url: string) => fetch(url.startsWith("/") ? new URL(url, proxy.publicUrl) : url);
      const page = await (await get(`${proxy.publicUrl}/docs`)).text();
      const links = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string);
      expect(links).toEqual([
        "/billing/docs/favicon-32x32.png",
        "/billing/docs/swagger-ui.css",
        "/billing/docs/swagger-ui-bundle.js",
        "/billing/docs/init.js",
      ]);
      for (const link of links) expect((await get(link)).status, link).toBe(200);
      const init = await (await get("/billing/docs/init.js")).text();
      const documentUrl = /url: "([^"]+)"/.exec(init)?.[1];
      expect(documentUrl).toBe("/billing/openapi.json");
      const document = await (await get(documentUrl!)).json();
      expect(document.servers).toEqual([{ url: proxy.publicUrl }]);
      // What a client generated from the document calls: the server's URL plus an operation's path.
      const { token } = await server.newAccount();
      const listed = await fetch(`${document.servers[0].url}/customers`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(listed.status).toBe(200);
      expect(await listed.json()).toMatchObject({ customers: [], total: 0 });
    } finally {
      await server.close();
    }
  });

  it("is an http(s) URL without query or fragment; a trailing slash is dropped", () => {
    const parse = (text: string) => configSchema.shape.PUBLIC_URL.safeParse(text);
    expect(parse("https://billing.example.com/api/")).toMatchObject({ data: "https://billing.example.com/api" });
    for (const bad of [
      "ftp://billing.example.com",
      "billing.example.com",
      "https://example.com/?a=1",
      "http://x.com/#a",
    ])
      expect(parse(bad).success, bad).toBe(false);
  });
});
