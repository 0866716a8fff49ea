import { request } from "node:http";
import { connect, type Socket } from "node:net";
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

  it("serves the icon browsers ask for at /favicon.ico, so no page load logs a 404", async () => {
    const response = await fetch(`${server.url}/favicon.ico`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/svg+xml");
    expect(await response.text()).toMatch(/^<svg [^>]*>.*<\/svg>$/);
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
    ["DELETE", "/favicon.ico", "GET"],
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
        "POST /alerts",
        "POST /backfills",
        "POST /contracts",
        "POST /contracts/{contractId}/coupons",
        "POST /contracts/{contractId}/seats",
        "POST /coupons",
        "POST /credits",
        "POST /credit-notes",
        "POST /customers",
        "POST /customers/{customerId}/reservations",
        "POST /events",
        "POST /events/{eventId}/void",
        "POST /exports",
        "POST /invoices/preview",
        "POST /invoices/simulate",
        "POST /invoices/{invoiceId}/payments",
        "POST /measurements",
        "POST /meters",
        "PATCH /meters/{meterId}",
        "POST /plans",
        "POST /plans/{planId}/versions",
        "POST /plans/{planId}/migrations",
        "POST /plans/{planId}/simulate",
        "POST /reservations/{id}/settle",
        "POST /tax-rates",
        "PATCH /tax-rates/{taxRateId}",
        "POST /test-clock/advance",
        "POST /webhook-endpoints",
        "PUT /payment-providers/stripe",
      ].sort(),
    );
    expect(bodyOf("/customers/{customerId}", "patch").required).toBe(false);
    expect(bodyOf("/webhook-endpoints/{endpointId}", "patch").required).toBe(false);
    expect(bodyOf("/billing-runs", "post").required).toBe(false);
    expect(bodyOf("/invoices/{invoiceId}/void", "post").required).toBe(false);
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

/**
 * Writes each request whole on one connection before reading anything, as clients such as Python's requests do, and
 * reads the status of each answer in turn: a server that closed the connection under the upload fails the writing.
 */
async function sendWholeThenRead(requests: Buffer[]): Promise<number[]> {
  const { hostname, port } = new URL(server.url);
  const socket = connect(Number(port), hostname).pause();
  const failed = new Promise<never>((_, reject) => socket.once("error", reject));
  const statuses: number[] = [];
  try {
    for (const whole of requests) {
      await Promise.race([new Promise((resolve) => socket.write(whole, resolve)), failed]);
      statuses.push(await Promise.race([readAnswer(socket), failed]));
    }
    return statuses;
  } finally {
    socket.destroy();
  }
}

/** The status of the next answer on `socket`, read through to the end of its body (its content-length). */
function readAnswer(socket: Socket): Promise<number> {
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const headEnd = received.indexOf("\r\n\r\n");
      if (headEnd < 0) return;
      const head = received.subarray(0, headEnd).toString();
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (received.length < headEnd + 4 + length) return;
      socket.off("data", onData).pause();
      resolve(Number(head.split(" ")[1]));
    };
    socket.on("data", onData).resume();
  });
}

const rawRequest = (method: string, path: string, body?: Buffer, chunked = false) => {
  const framing =
    body === undefined ? "" : chunked ? "transfer-encoding: chunked\r\n" : `content-length: ${body.length}\r\n`;
  const head =
    `${method} ${path} HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${account.token}\r\n` +
    `content-type: application/json\r\n${framing}\r\n`;
  const payload =
    body === undefined || !chunked
      ? body
      : Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n0\r\n\r\n")]);
  return Buffer.concat([Buffer.from(head), payload ?? Buffer.alloc(0)]);
};

describe("a body above the 5 MiB limit", () => {
  // Four times the limit: far more than the connection's buffers hold, so the body must be read for the write to end.
  const oversized = Buffer.from(JSON.stringify({ name: "Huge", taxId: "x".repeat(20 * 1024 * 1024) }));

  it.each([false, true])(
    "sent whole before reading (chunked: %s) gets its REST 413, and the connection carries the next request",
    async (chunked) => {
      const statuses = await sendWholeThenRead([
        rawRequest("POST", "/customers", oversized, chunked),
        rawRequest("GET", "/customers/name/Huge"),
      ]);
      expect(statuses).toEqual([413, 404]);
    },
  );

  it("sent whole before reading gets its tRPC 413 too", async () => {
    expect(await sendWholeThenRead([rawRequest("POST", "/trpc/customers.create", oversized)])).toEqual([413]);
  });
});
