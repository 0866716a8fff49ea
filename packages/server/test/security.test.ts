import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useTestServer } from "./support/harness.js";
import { ADMIN_TOKEN, trpcErrorCode, withBareService } from "./support/server.js";
import { everythingStored } from "./support/stored-data.js";

const server = useTestServer();

describe("authentication", () => {
  it("serves /health and /openapi.json without a token", async () => {
    expect(await server.rest("GET", "/health")).toMatchObject({ status: 200, body: { status: "ok" } });
    const doc = await server.rest("GET", "/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    expect(doc.body.components.securitySchemes.bearerAuth).toEqual({ type: "http", scheme: "bearer" });
    expect(doc.body.paths["/customers/name/{name}"].get).toMatchObject({
      operationId: "customers-getByName",
      security: [{ bearerAuth: [] }],
      parameters: [{ in: "path", name: "name", required: true }],
    });
    expect(doc.body.paths["/customers"].post.responses["201"].content["application/json"].schema).toMatchObject({
      properties: { customer: { $ref: "#/components/schemas/Customer" } },
    });
  });

  it.each([
    ["no header", undefined],
    ["not bearer", "Basic dXNlcjpwYXNz"],
    ["empty bearer", "Bearer "],
    ["unknown token", `Bearer bill_${randomBytes(32).toString("base64url")}`],
  ])("401 with %s", async (_, authorization) => {
    const response = await server.rest("GET", "/customers", { headers: authorization ? { authorization } : {} });
    expect(response.status).toBe(401);
    expect(response.body.code).toBe("UNAUTHORIZED");
  });

  it("401 before validation: a bad request without a token reveals nothing", async () => {
    const response = await server.rest("GET", "/customers?limit=0");
    expect(response.status).toBe(401);
  });

  it("401 over tRPC without a token", async () => {
    expect(await trpcErrorCode(server.trpc().customers.list.query({}))).toBe("UNAUTHORIZED");
  });

  it("stores tokens only as hashes", async () => {
    const { token } = await server.newAccount();
    const stored = await server.service.db.collection("tokens").find({}).toArray();
    expect(JSON.stringify(stored)).not.toContain(token);
    expect(JSON.stringify(stored)).not.toContain(token.slice(5, 25));
    expect(token.length).toBeGreaterThanOrEqual(43);
  });

  it("leaves no token an answer shows in the database: new accounts and tokens, rotations (REST, tRPC)", async () => {
    const { accountId, token } = await server.newAccount();
    const admin = server.trpc(ADMIN_TOKEN).admin;
    const created = await admin.createToken.mutate({ accountId, scope: "read" });
    const rotated = await server.rest("POST", `/admin/tokens/${created.tokenId}/rotate`, { token: ADMIN_TOKEN });
    expect(rotated.status).toBe(201);
    const stored = await everythingStored(server.service.db);
    for (const shown of [token, created.token, rotated.body.token]) {
      expect(stored).not.toContain(shown.slice("bill_".length));
    }
  });

  it("a revoked token stops working at once; other tokens of the account keep working", async () => {
    const { accountId, token } = await server.newAccount();
    const second = await server.rest("POST", `/admin/accounts/${accountId}/tokens`, { token: ADMIN_TOKEN });
    expect(second.status).toBe(201);
    expect(second.body).toEqual({ tokenId: expect.any(String), token: expect.any(String) });
    expect((await server.rest("GET", "/customers", { token: second.body.token })).status).toBe(200);
    const revoked = await server.rest("DELETE", `/admin/tokens/${second.body.tokenId}`, { token: ADMIN_TOKEN });
    expect(revoked.status).toBe(200);
    expect((await server.rest("GET", "/customers", { token: second.body.token })).status).toBe(401);
    expect((await server.rest("GET", "/customers", { token })).status).toBe(200);
    expect((await server.rest("DELETE", `/admin/tokens/${second.body.tokenId}`, { token: ADMIN_TOKEN })).status).toBe(
      404,
    );
  });
});

describe("admin API", () => {
  it("creates an account with id, name, createdAt, the default prefix and a token that it revokes", async () => {
    const { status, body } = await server.rest("POST", "/admin/accounts", {
      token: ADMIN_TOKEN,
      body: { name: "Tenant" },
    });
    expect(status).toBe(201);
    expect(body.account).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: "Tenant",
      createdAt: expect.any(String),
      invoicePrefix: "INV",
      defaultCurrency: "USD",
      netTermsDays: 30,
      autoCollect: true,
    });
    expect((await server.rest("GET", "/customers", { token: body.token })).status).toBe(200);
    const listed = await server.rest("GET", `/admin/accounts/${body.account.id}/tokens`, { token: ADMIN_TOKEN });
    expect(listed.body.tokens.map((token: { id: string }) => token.id)).toEqual([body.tokenId]);
    expect((await server.rest("DELETE", `/admin/tokens/${body.tokenId}`, { token: ADMIN_TOKEN })).status).toBe(200);
    expect((await server.rest("GET", "/customers", { token: body.token })).status).toBe(401);
  });

  it("refuses account tokens and wrong admin tokens", async () => {
    const { token } = await server.newAccount();
    expect((await server.rest("POST", "/admin/accounts", { token, body: { name: "x" } })).status).toBe(401);
    expect((await server.rest("POST", "/admin/accounts", { body: { name: "x" } })).status).toBe(401);
  });

  it("404 for a token of an unknown account; 400 for a bad account body", async () => {
    expect(
      (await server.rest("POST", "/admin/accounts/0123456789abcdef01234567/tokens", { token: ADMIN_TOKEN })).status,
    ).toBe(404);
    expect((await server.rest("POST", "/admin/accounts", { token: ADMIN_TOKEN, body: { name: "" } })).status).toBe(400);
  });

  it("is disabled (403) when the server has no ADMIN_TOKEN", async () => {
    await withBareService(async (bare) => {
      const response = await fetch(`${bare.url}/admin/accounts`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "x" }),
      });
      expect(response.status).toBe(403);
      expect((await response.json()).code).toBe("FORBIDDEN");
    });
  });
});
