import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { useAccount, useOpenApiDocument, useTestServer } from "./support/harness.js";
import { ADMIN_TOKEN, trpcErrorCode } from "./support/server.js";

/** What outside tools check against /openapi.json: methods and `Allow`, the version header, bodies required or not. */
const server = useTestServer();
const account = useAccount(server);
const document = useOpenApiDocument(server);

/** fetch refuses TRACE, which the outside fuzzer sends: this is node's own client. */
function trace(
  path: string,
): Promise<{ status: number; allow: string | undefined; apiVersion: string | undefined; body: any }> {
  return new Promise((resolve, reject) => {
    const call = request(`${server.url}${path}`, { method: "TRACE" }, (response) => {
      let text = "";
      response.on("data", (chunk) => (text += chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          allow: response.headers.allow,
          apiVersion: response.headers["api-version"]?.toString(),
          body: JSON.parse(text || "null"),
        }),
      );
    });
    call.on("error", reject).end();
  });
}

describe("a method a known path does not serve", () => {
  it("TRACE /contracts is 405 with Allow: GET, POST", async () => {
    const response = await trace("/contracts");
    expectError(response, 405, "METHOD_NOT_SUPPORTED");
    expect(response.allow).toBe("GET, POST");
  });

  it.each([
    ["PUT", "/contracts", "GET, POST"],
    ["PUT", "/customers/some-id", "GET, PATCH"],
    ["DELETE", "/customers/name/Acme", "GET"],
    ["PATCH", "/admin/accounts", "POST"],
    ["GET", "/billing-runs", "POST"],
    // A literal path is its own resource, though `/invoices/{invoiceId}` matches it too.
    ["GET", "/invoices/preview", "POST"],
    ["OPTIONS", "/events", "GET, POST"],
    ["HEAD", "/credits", "GET, POST"],
    ["POST", "/health", "GET"],
    ["DELETE", "/openapi.json", "GET"],
    ["POST", "/docs", "GET"],
  ])("%s %s is 405 with Allow: %s and the error body, before authentication", async (method, path, allow) => {
    const response = await server.rest(method, path, { token: account.token });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe(allow);
    if (method === "HEAD") return; // no body in an answer to HEAD
    expectError(response, 405, "METHOD_NOT_SUPPORTED");
    expect(response.body.message).toBe(`${method} is not allowed here; allowed: ${allow}`);
    expectError(await server.rest(method, path), 405, "METHOD_NOT_SUPPORTED");
  });

  it("lists in Allow exactly the methods the document gives the path", async () => {
    for (const [path, item] of Object.entries<Record<string, unknown>>(document.paths)) {
      const concrete = path.replace(/\{\w+\}/g, "some-id");
      const response = await trace(concrete);
      expect(response.status, `TRACE ${concrete}`).toBe(405);
      expect(response.allow).toBe(
        Object.keys(item)
          .map((method) => method.toUpperCase())
          .sort()
          .join(", "),
      );
    }
  });

  it("matches paths as the router does (any case, a trailing slash), and 404 stays for unknown paths", async () => {
    expect((await trace("/Contracts/")).allow).toBe("GET, POST");
    expectError(await trace("/no-such-path"), 404, "NOT_FOUND");
    expectError(await server.rest("GET", "/contracts/a/b", { token: account.token }), 404, "NOT_FOUND");
  });
});

describe("API-Version", () => {
  it("is the document's info.version, a semver", () => {
    expect(document.info.version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("comes with every response: successes, errors, 405s, documents and tRPC", async () => {
    const responses = [
      await server.rest("GET", "/health"),
      await server.rest("GET", "/openapi.json"),
      await server.rest("GET", "/docs"),
      await server.rest("GET", "/customers", { token: account.token }),
      await server.rest("GET", "/customers"),
      await server.rest("GET", "/no-such-path"),
      await server.rest("PUT", "/customers"),
      await server.rest("POST", "/customers", { token: account.token, body: "{" }),
      await server.rest("GET", "/trpc/customers.list?input=%7B%7D", { token: account.token }),
    ];
    for (const response of responses) expect(response.headers.get("api-version")).toBe(document.info.version);
    expect((await trace("/customers")).apiVersion).toBe(document.info.version);
  });
});

describe("request bodies", () => {
  const bodyOf = (path: string, method: string) => document.paths[path][method].requestBody;

  it("are required in the document exactly where `{}` is refused", () => {
    const required = Object.entries<Record<string, any>>(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => operation.requestBody?.required)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(required.sort()).toEqual(
      [
        "POST /admin/accounts",
        "POST /contracts",
        "POST /credits",
        "POST /customers",
        "POST /events",
        "POST /invoices/preview",
        "POST /measurements",
        "POST /meters",
        "PATCH /meters/{meterId}",
        "POST /webhook-endpoints",
      ].sort(),
    );
    expect(bodyOf("/customers/{customerId}", "patch").required).toBe(false);
    expect(bodyOf("/webhook-endpoints/{endpointId}", "patch").required).toBe(false);
    expect(bodyOf("/billing-runs", "post").required).toBe(false);
  });

  it("may be left out where optional: PATCH changes nothing, a billing run bills up to now", async () => {
    const created = await server.rest("POST", "/customers", {
      token: account.token,
      body: { name: "No-body Ltd", taxId: "T-1" },
    });
    const unchanged = await server.rest("PATCH", `/customers/${created.body.customer.id}`, { token: account.token });
    expect(unchanged.status).toBe(200);
    expect(unchanged.body.customer).toMatchObject({ name: "No-body Ltd", taxId: "T-1" });

    const before = Date.now();
    const run = await server.rest("POST", "/billing-runs", { token: account.token });
    expect(run.status).toBe(200);
    expect(Date.parse(run.body.run.at)).toBeGreaterThanOrEqual(before - 1000);
  });

  it("are 400 where required and left out, naming the missing fields", async () => {
    const response = await server.rest("POST", "/contracts", { token: account.token });
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.issues.map((issue: { path: string }) => issue.path)).toEqual(
      expect.arrayContaining(["startDate", "customerId", "name"]),
    );
    expectError(await server.rest("POST", "/invoices/preview", { token: account.token }), 400, "BAD_REQUEST");
  });

  it.each(["true", "[]", "1", '"text"', "null"])("are 400 when not a JSON object: %s", async (body) => {
    const response = await server.rest("POST", "/billing-runs", { token: account.token, body });
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.message).toBe("The request body must be a JSON object");
  });

  it("that are not objects are refused on the admin operations too (which took `true` for `{}`)", async () => {
    const { status } = await server.rest("POST", "/admin/accounts/some-id/tokens", {
      token: ADMIN_TOKEN,
      body: "true",
    });
    expect(status).toBe(400);
    expect(await trpcErrorCode(server.trpc(account.token).billing.run.mutate(true as never))).toBe("BAD_REQUEST");
  });
});
