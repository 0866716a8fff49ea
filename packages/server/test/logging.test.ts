import { describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.js";
import { useAccount, useTestServer } from "./support/harness.js";
import { ADMIN_TOKEN } from "./support/server.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Everything the service logged, as written (raw) and parsed (one object per line). */
const raw: string[] = [];
const lines = () => raw.map((line) => JSON.parse(line) as Record<string, unknown>);
const server = useTestServer({ logger: createLogger("info", { write: (line: string) => void raw.push(line) }) });
const account = useAccount(server);

async function call(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; requestId?: string } = {},
) {
  const headers: Record<string, string> = options.requestId === undefined ? {} : { "x-request-id": options.requestId };
  const response = await server.rest(method, path, { token: options.token, body: options.body, headers });
  return { status: response.status, requestId: response.headers.get("x-request-id"), body: response.body };
}

/** The request's log line; it is written when the response is done, which may be just after the client has it. */
async function requestLine(requestId: string | null) {
  for (let attempt = 0; attempt < 100; attempt++) {
    const found = lines().filter((line) => line.reqId === requestId && line.path !== undefined);
    if (found.length > 0) {
      expect(found).toHaveLength(1);
      return found[0]!;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no log line for request ${requestId}`);
}

describe("request logs", () => {
  it("logs one line per REST call: id, method, path without query, status, duration and account", async () => {
    const response = await call("GET", "/customers?limit=5&note=query-secret-value", {
      token: account.token,
      requestId: "trace-42.a:b_c",
    });
    expect(response.status).toBe(200);
    expect(response.requestId).toBe("trace-42.a:b_c");
    expect(await requestLine("trace-42.a:b_c")).toMatchObject({
      level: 30,
      msg: "request",
      method: "GET",
      path: "/customers",
      status: 200,
      durationMs: expect.any(Number),
      accountId: account.accountId,
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it("logs tRPC calls the same way, with the account known to the auth middleware", async () => {
    const response = await call("POST", "/trpc/customers.create", {
      token: account.token,
      body: { name: "Body Secret Co" },
    });
    expect(response.status).toBe(200);
    expect(response.requestId).toMatch(UUID);
    expect(await requestLine(response.requestId)).toMatchObject({
      method: "POST",
      path: "/trpc/customers.create",
      status: 200,
      accountId: account.accountId,
    });
  });

  it("logs refused calls without an account, and replaces an unusable request id with a new one", async () => {
    for (const given of ["has spaces", "x".repeat(129), 'quote"d', ""]) {
      const response = await call("GET", "/customers", { token: "bill_not-a-real-token", requestId: given });
      expect(response.status).toBe(401);
      expect(response.requestId).toMatch(UUID);
      const line = await requestLine(response.requestId);
      expect(line).toMatchObject({ status: 401, path: "/customers" });
      expect(line).not.toHaveProperty("accountId");
    }
  });

  it("logs admin calls without their operator token", async () => {
    const response = await call("POST", `/admin/accounts/${account.accountId}/tokens`, {
      token: ADMIN_TOKEN,
      body: {},
      requestId: "admin-call",
    });
    expect(response.status).toBe(201);
    expect(await requestLine("admin-call")).toMatchObject({ method: "POST", status: 201 });
    expect(raw.join("")).not.toContain(response.body.token);
  });

  it("never writes a token, an Authorization header, a query value or a body", () => {
    const everything = raw.join("");
    expect(everything.length).toBeGreaterThan(0);
    for (const secret of [
      account.token,
      ADMIN_TOKEN,
      "bill_not-a-real-token",
      "Bearer",
      "query-secret-value",
      "Body Secret Co",
    ]) {
      expect(everything).not.toContain(secret);
    }
    expect(everything.toLowerCase()).not.toContain("authorization");
  });
});
