import { describe, expect, it, vi } from "vitest";
import { hashToken } from "../src/auth/tokens.js";
import { LAST_USED_RESOLUTION_MS } from "../src/repositories/tokens.js";
import { expectError } from "./support/assertions.js";
import { useTestServer } from "./support/harness.js";
import { ADMIN_TOKEN, startTwinService, trpcErrorCode } from "./support/server.js";

const server = useTestServer();

const admin = (method: string, path: string, body?: unknown) => server.rest(method, path, { token: ADMIN_TOKEN, body });

/** A new account, and a second token of it with `scope`. */
async function accountWithToken(scope?: "read" | "write" | "finance") {
  const { accountId, token: writeToken } = await server.newAccount();
  const created = await admin("POST", `/admin/accounts/${accountId}/tokens`, scope && { scope });
  expect(created.status).toBe(201);
  return { accountId, writeToken, tokenId: created.body.tokenId as string, token: created.body.token as string };
}

const listTokens = async (accountId: string) =>
  (await admin("GET", `/admin/accounts/${accountId}/tokens`)).body.tokens as any[];

describe("read and write scopes", () => {
  it("a read token reads over REST and tRPC", async () => {
    const { token, writeToken } = await accountWithToken("read");
    const customer = (await server.rest("POST", "/customers", { token: writeToken, body: { name: "Seen" } })).body
      .customer;
    expect((await server.rest("GET", `/customers/${customer.id}`, { token })).status).toBe(200);
    expect((await server.rest("GET", "/customers", { token })).body.total).toBe(1);
    expect((await server.trpc(token).customers.list.query({})).total).toBe(1);
  });

  it("GET /token shows any token its own id, account and scope, over REST and tRPC; no token is 401", async () => {
    const { accountId, token, tokenId, writeToken } = await accountWithToken("read");
    const read = await server.rest("GET", "/token", { token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ token: { id: tokenId, accountId, scope: "read" } });
    const [first] = (await listTokens(accountId)).filter(({ scope }) => scope === "write");
    expect(await server.trpc(writeToken).token.current.query({})).toEqual({
      token: { id: first.id, accountId, scope: "write" },
    });
    expectError(await server.rest("GET", "/token", {}), 401, "UNAUTHORIZED");
  });

  /** The POSTs that only read (a simulation: its terms are a body), which a read token may call. */
  const READ_ONLY_POSTS = ["POST /invoices/simulate", "POST /plans/{planId}/simulate"];

  it("every write route of the API answers 403 FORBIDDEN to a read token, and nothing is written", async () => {
    const { token, accountId } = await accountWithToken("read");
    const document = (await server.rest("GET", "/openapi.json")).body;
    const writes = Object.entries(document.paths as Record<string, Record<string, unknown>>)
      .filter(([path]) => !path.startsWith("/admin/"))
      .flatMap(([path, operations]) =>
        Object.keys(operations)
          .filter((method) => method !== "get")
          .map((method) => [method.toUpperCase(), path]),
      );
    expect(writes.length).toBeGreaterThanOrEqual(8);
    for (const [method, path] of writes) {
      const concrete = path!.replace(/\{[^}]+\}/g, "0123456789abcdef01234567");
      const response = await server.rest(method!, concrete, {
        token,
        body: method === "DELETE" ? undefined : { name: "x" },
      });
      if (READ_ONLY_POSTS.includes(`${method} ${path}`)) {
        // A POST only for its body, which writes nothing: the read scope reaches its validation (400 on this body).
        expectError(response, 400, "BAD_REQUEST");
        continue;
      }
      expect([method, path, response.status]).toEqual([method, path, 403]);
      expectError(response, 403, "FORBIDDEN");
    }
    // The operator made the account and its tokens (and the audit log says so): nothing else is the account's.
    const madeHere = { accountId, "actor.type": { $ne: "operator" } };
    for (const { name } of await server.service.db.listCollections().toArray()) {
      const filter = name === "auditLog" ? madeHere : { accountId };
      if (name !== "tokens")
        expect([name, await server.service.db.collection(name).countDocuments(filter)]).toEqual([name, 0]);
    }
  });

  /** What a finance token may change (docs/decisions.md, "Token scopes"): a finance team's work, no configuration. */
  const FINANCE_ROUTES = [
    "POST /invoices/{invoiceId}/payments",
    "POST /invoices/{invoiceId}/void",
    "POST /invoices/{invoiceId}/finalize",
    "POST /invoices/{invoiceId}/collect",
    "POST /invoices/preview",
    "POST /credit-notes",
    "POST /credits",
    "POST /credits/{entryId}/void",
    "POST /credits/{entryId}/recurrence/cancel",
    "POST /billing-runs",
    "POST /test-clock/advance",
    "POST /exports",
  ];

  it("a finance token reaches a finance team's routes, and 403 naming the scope needed on every other", async () => {
    const { token, accountId } = await accountWithToken("finance");
    const document = (await server.rest("GET", "/openapi.json")).body;
    const writes = Object.entries(document.paths as Record<string, Record<string, unknown>>)
      .filter(([path]) => !path.startsWith("/admin/"))
      .flatMap(([_path, operations]) =>
        Object.keys(operations).flatMap((method) => (method === "get" ? [] : [method])),
      ).length;
    let refused = 0;
    for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, unknown>>)) {
      if (path.startsWith("/admin/")) continue;
      for (const method of Object.keys(operations).filter((method) => method !== "get")) {
        const route = `${method.toUpperCase()} ${path}`;
        const concrete = path.replace(/\{[^}]+\}/g, "0123456789abcdef01234567");
        const body = method === "delete" ? undefined : { name: "x" };
        const response = await server.rest(method.toUpperCase(), concrete, { token, body });
        if (FINANCE_ROUTES.includes(route) || READ_ONLY_POSTS.includes(route)) {
          // Past the scope: the route's own answer to a body and ids naming nothing (400 or 404), never 403.
          expect([route, [400, 404].includes(response.status)]).toEqual([route, true]);
          continue;
        }
        refused += 1;
        expectError(response, 403, "FORBIDDEN");
        expect(response.body.message).toContain("This token has the finance scope");
        expect(response.body.message).toContain("needs the write scope");
      }
    }
    expect(refused).toBe(writes - FINANCE_ROUTES.length - READ_ONLY_POSTS.length);
    // The operator made the account and its tokens (and the audit log says so): nothing else is the account's.
    for (const { name } of await server.service.db.listCollections().toArray()) {
      const filter = name === "auditLog" ? { accountId, "actor.type": { $ne: "operator" } } : { accountId };
      if (name !== "tokens")
        expect([name, await server.service.db.collection(name).countDocuments(filter)]).toEqual([name, 0]);
    }
  });

  it("a finance token records a payment on a real invoice, and a read token is told it needs finance", async () => {
    const { token, writeToken, accountId } = await accountWithToken("finance");
    const customer = await server.rest("POST", "/customers", { token: writeToken, body: { name: "Payer" } });
    const scheduling = { duration: { unit: "MONTH", value: 1 }, billingDay: 1 };
    const contract = {
      name: "Fee",
      customerId: customer.body.customer.id,
      startDate: "2024-01-01T00:00:00Z",
      endDate: "2024-02-01T00:00:00Z",
      products: [{ displayName: "Fee", scheduling, pricing: { type: "FLAT", price: 12.5 } }],
    };
    expect((await server.rest("POST", "/contracts", { token: writeToken, body: contract })).status).toBe(201);
    const run = await server.rest("POST", "/billing-runs", { token, body: { at: "2024-03-01T00:00:00Z" } });
    const [invoiceId] = run.body.run.invoiceIds;
    const payment = { amount: 12.5, transactionId: "wire-1" };
    const paid = await server.rest("POST", `/invoices/${invoiceId}/payments`, { token, body: payment });
    expect(paid.status).toBe(201);
    const reader = (await admin("POST", `/admin/accounts/${accountId}/tokens`, { scope: "read" })).body.token;
    const refused = await server.rest("POST", `/invoices/${invoiceId}/void`, { token: reader, body: {} });
    expectError(refused, 403, "FORBIDDEN");
    expect(refused.body.message).toContain("needs the finance or write scope");
  });

  it("a read token is refused every mutation over tRPC too", async () => {
    const { token } = await accountWithToken("read");
    const trpc = server.trpc(token);
    expect(await trpcErrorCode(trpc.customers.create.mutate({ name: "Nope" }))).toBe("FORBIDDEN");
    expect(await trpcErrorCode(trpc.contracts.delete.mutate({ contractId: "0123456789abcdef01234567" }))).toBe(
      "FORBIDDEN",
    );
    expect(await trpcErrorCode(trpc.billing.run.mutate({}))).toBe("FORBIDDEN");
  });

  it("a write token reads and writes; tokens are write unless asked otherwise", async () => {
    const { token, accountId } = await accountWithToken();
    expect((await server.rest("POST", "/customers", { token, body: { name: "Written" } })).status).toBe(201);
    expect((await server.rest("GET", "/customers", { token })).body.total).toBe(1);
    expect((await listTokens(accountId)).map((t) => t.scope)).toEqual(["write", "write"]);
  });

  it("refuses an unknown scope with 400", async () => {
    const { accountId } = await server.newAccount();
    const response = await admin("POST", `/admin/accounts/${accountId}/tokens`, { scope: "admin" });
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.issues[0].path).toBe("scope");
  });

  it("a token stored before scopes existed has write access and lists as write", async () => {
    const { accountId } = await server.newAccount();
    const legacy = "bill_legacy-token-from-before-scopes-0123456789";
    await server.service.db
      .collection("tokens")
      .insertOne({ accountId, hash: hashToken(legacy), createdAt: new Date(), revokedAt: null });
    expect((await server.rest("POST", "/customers", { token: legacy, body: { name: "Old" } })).status).toBe(201);
    expect((await listTokens(accountId)).map((t) => t.scope)).toEqual(["write", "write"]);
  });
});

describe("listing tokens", () => {
  it("lists every token of the account, oldest first, with scope and dates and never a secret", async () => {
    const { accountId, tokenId, token, writeToken } = await accountWithToken("read");
    await admin("DELETE", `/admin/tokens/${tokenId}`);
    const response = await admin("GET", `/admin/accounts/${accountId}/tokens`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(["tokens"]);
    const [first, second] = response.body.tokens;
    expect(response.body.tokens).toHaveLength(2);
    expect(first).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      scope: "write",
      createdAt: expect.stringMatching(/Z$/),
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(second).toEqual({
      id: tokenId,
      scope: "read",
      createdAt: expect.stringMatching(/Z$/),
      lastUsedAt: null,
      revokedAt: expect.stringMatching(/Z$/),
    });
    for (const secret of [token, writeToken, hashToken(token)])
      expect(JSON.stringify(response.body)).not.toContain(secret);
    expect(await listTokens((await server.newAccount()).accountId)).toHaveLength(1);
  });

  it("404 for an unknown account, over REST and tRPC", async () => {
    expectError(await admin("GET", "/admin/accounts/0123456789abcdef01234567/tokens"), 404, "NOT_FOUND");
    expect(await trpcErrorCode(server.trpc(ADMIN_TOKEN).admin.listTokens.query({ accountId: "nope" }))).toBe(
      "NOT_FOUND",
    );
  });
});

describe("lastUsedAt", () => {
  it("is set on first use and written again once the value an instance knows is a minute old", async () => {
    const { accountId, tokenId, token } = await accountWithToken("read");
    const lastUsed = async () =>
      (await listTokens(accountId)).find((t) => t.id === tokenId).lastUsedAt as string | null;
    expect(await lastUsed()).toBeNull();

    await server.rest("GET", "/customers", { token });
    const first = await lastUsed();
    expect(first).not.toBeNull();
    await server.rest("GET", "/customers", { token });
    expect(await lastUsed()).toBe(first);

    // Another instance reads the token with a value a minute old: it writes again.
    const stale = new Date(Date.parse(first!) - LAST_USED_RESOLUTION_MS);
    await server.service.db.collection("tokens").updateOne({ hash: hashToken(token) }, { $set: { lastUsedAt: stale } });
    const twin = await startTwinService(server);
    try {
      await fetch(`${twin.url}/customers`, { headers: { authorization: `Bearer ${token}` } });
    } finally {
      await twin.close();
    }
    expect(Date.parse((await lastUsed())!)).toBeGreaterThanOrEqual(Date.parse(first!));

    // This instance, a minute after its own write, writes again.
    const written = await lastUsed();
    vi.useFakeTimers({ toFake: ["Date"], now: Date.parse(written!) + LAST_USED_RESOLUTION_MS });
    try {
      await server.rest("GET", "/customers", { token });
    } finally {
      vi.useRealTimers();
    }
    expect(Date.parse((await lastUsed())!)).toBe(Date.parse(written!) + LAST_USED_RESOLUTION_MS);
  });

  it("a revocation holds at once on an instance that has read the token before", async () => {
    const { tokenId, token } = await accountWithToken("read");
    const twin = await startTwinService(server);
    try {
      const onTwin = () => fetch(`${twin.url}/customers`, { headers: { authorization: `Bearer ${token}` } });
      expect((await onTwin()).status).toBe(200);
      expect((await admin("DELETE", `/admin/tokens/${tokenId}`)).status).toBe(200);
      expect((await onTwin()).status).toBe(401);
      expect((await server.rest("GET", "/customers", { token })).status).toBe(401);
    } finally {
      await twin.close();
    }
  });
});

describe("rotation", () => {
  it("gives a new token of the same account and scope, and revokes the old one at once", async () => {
    const { accountId, tokenId, token, writeToken } = await accountWithToken("read");
    await server.rest("POST", "/customers", { token: writeToken, body: { name: "Mine" } });
    const rotated = await admin("POST", `/admin/tokens/${tokenId}/rotate`);
    expect(rotated.status).toBe(201);
    expect(rotated.body).toEqual({
      tokenId: expect.stringMatching(/^[0-9a-f]{24}$/),
      token: expect.stringMatching(/^bill_/),
    });

    expect((await server.rest("GET", "/customers", { token })).status).toBe(401);
    expect((await server.rest("GET", "/customers", { token: rotated.body.token })).body.total).toBe(1);
    expectError(
      await server.rest("POST", "/customers", { token: rotated.body.token, body: { name: "x" } }),
      403,
      "FORBIDDEN",
    );
    const listed = await listTokens(accountId);
    expect(listed.find((t) => t.id === rotated.body.tokenId)).toMatchObject({ scope: "read", revokedAt: null });
    expect(listed.find((t) => t.id === tokenId).revokedAt).not.toBeNull();
    // One successor per token: once the rotation has ended it, a second rotation is still a 409, as documented.
    const again = await admin("POST", `/admin/tokens/${tokenId}/rotate`);
    expectError(again, 409, "CONFLICT");
    expect(again.body.message).toBe("This token was already rotated: rotate or revoke its successor instead");
  });

  it("with a grace period the old token keeps working until it ends, or until revoked", async () => {
    const { accountId, tokenId, token } = await accountWithToken("write");
    const rotated = await admin("POST", `/admin/tokens/${tokenId}/rotate`, { graceSeconds: 3600 });
    expect(rotated.status).toBe(201);
    expect((await server.rest("GET", "/customers", { token })).status).toBe(200);
    expect((await server.rest("GET", "/customers", { token: rotated.body.token })).status).toBe(200);
    const revokedAt = Date.parse((await listTokens(accountId)).find((t) => t.id === tokenId).revokedAt);
    expect(revokedAt).toBeGreaterThan(Date.now() + 3500_000);

    // One successor per token: a second rotation during the grace period is refused.
    expectError(await admin("POST", `/admin/tokens/${tokenId}/rotate`), 409, "CONFLICT");
    expect((await admin("DELETE", `/admin/tokens/${tokenId}`)).status).toBe(200);
    expect((await server.rest("GET", "/customers", { token })).status).toBe(401);
    expect((await server.rest("GET", "/customers", { token: rotated.body.token })).status).toBe(200);
  });

  it("concurrent rotations of one token make exactly one successor", async () => {
    const { accountId, tokenId } = await accountWithToken("write");
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => admin("POST", `/admin/tokens/${tokenId}/rotate`)),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    const live = (await listTokens(accountId)).filter((t) => t.revokedAt === null);
    expect(live.map((t) => t.id).sort()).toEqual(
      [(await listTokens(accountId))[0].id, answers.find((a) => a.status === 201)!.body.tokenId].sort(),
    );
  });

  it("refuses a bad grace period and answers 404 for an unknown token", async () => {
    const { tokenId } = await accountWithToken("write");
    expectError(await admin("POST", `/admin/tokens/${tokenId}/rotate`, { graceSeconds: 86_401 }), 400, "BAD_REQUEST");
    expectError(await admin("POST", `/admin/tokens/${tokenId}/rotate`, { graceSeconds: -1 }), 400, "BAD_REQUEST");
    expectError(await admin("POST", "/admin/tokens/0123456789abcdef01234567/rotate"), 404, "NOT_FOUND");
  });

  it("works over tRPC", async () => {
    const { tokenId } = await accountWithToken("read");
    const rotated = await server.trpc(ADMIN_TOKEN).admin.rotateToken.mutate({ tokenId });
    expect((await server.rest("GET", "/customers", { token: rotated.token })).status).toBe(200);
    expect(await trpcErrorCode(server.trpc(ADMIN_TOKEN).admin.rotateToken.mutate({ tokenId }))).toBe("CONFLICT");
  });
});

describe("admin calls", () => {
  it("refuse an Idempotency-Key: their answers hold secrets, which are never stored", async () => {
    const response = await server.rest("POST", "/admin/accounts", {
      token: ADMIN_TOKEN,
      body: { name: "Keyed" },
      headers: { "idempotency-key": "k-1" },
    });
    expectError(response, 400, "BAD_REQUEST");
    expect(await server.service.db.collection("accounts").countDocuments({ name: "Keyed" })).toBe(0);
  });
});
