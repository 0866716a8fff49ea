import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { useAccount, useTestServer } from "./support/harness.js";
import { trpcErrorCode } from "./support/server.js";

const server = useTestServer();
const account = useAccount(server);

describe("customer errors", () => {
  it("409 on a duplicate name, and the first customer is unchanged", async () => {
    const first = await server.rest("POST", "/customers", {
      token: account.token,
      body: { name: "Dup", taxId: "original" },
    });
    expectError(
      await server.rest("POST", "/customers", { token: account.token, body: { name: "Dup", taxId: "other" } }),
      409,
      "CONFLICT",
    );
    expect((await server.rest("GET", "/customers/name/Dup", { token: account.token })).body.customer).toEqual(
      first.body.customer,
    );
  });

  it("409 when an update takes another customer's name", async () => {
    await server.rest("POST", "/customers", { token: account.token, body: { name: "Taken" } });
    const other = (await server.rest("POST", "/customers", { token: account.token, body: { name: "Free" } })).body
      .customer;
    expectError(
      await server.rest("PATCH", `/customers/${other.id}`, { token: account.token, body: { name: "Taken" } }),
      409,
      "CONFLICT",
    );
    expect((await server.rest("GET", `/customers/${other.id}`, { token: account.token })).body.customer.name).toBe(
      "Free",
    );
  });

  it("400 with the invalid fields named", async () => {
    const response = await server.rest("POST", "/customers", {
      token: account.token,
      body: {
        name: "",
        contacts: [{ email: "not-an-email" }],
        dueDays: "NEVER",
        id: "x",
        createdAt: "2020-01-01T00:00:00Z",
      },
    });
    expectError(response, 400, "BAD_REQUEST");
    const paths = response.body.issues.map((issue: { path: string }) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(["name", "contacts.0.email", "dueDays", "id", "createdAt"]));
    expect(response.body.message).toMatch(/id/);
  });

  it("400 naming each unknown field at its own path, nested ones included", async () => {
    const top = await server.rest("POST", "/customers", { token: account.token, body: { name: "x", id: "abc" } });
    expectError(top, 400, "BAD_REQUEST");
    expect(top.body.issues).toEqual([{ path: "id", message: "unknown field" }]);
    const nested = await server.rest("POST", "/customers", {
      token: account.token,
      body: { name: "y", contacts: [{ email: "a@example.com" }, { email: "b@example.com", foo: 1, bar: 2 }] },
    });
    expectError(nested, 400, "BAD_REQUEST");
    expect(nested.body.issues).toEqual([
      { path: "contacts.1.foo", message: "unknown field" },
      { path: "contacts.1.bar", message: "unknown field" },
    ]);
    expect(nested.body.message).toBe("Invalid input: contacts.1.foo: unknown field; contacts.1.bar: unknown field");
    expect((await server.rest("GET", "/customers", { token: account.token })).body.customers).not.toContainEqual(
      expect.objectContaining({ name: "x" }),
    );
  });

  it("400 when name is missing, and for bad JSON; 415 for a non-JSON body", async () => {
    expectError(await server.rest("POST", "/customers", { token: account.token, body: {} }), 400, "BAD_REQUEST");
    expectError(
      await server.rest("POST", "/customers", { token: account.token, body: '{"name": "x"' }),
      400,
      "BAD_REQUEST",
    );
    expectError(
      await server.rest("POST", "/customers", {
        token: account.token,
        body: "name=x",
        headers: { "content-type": "text/plain" },
      }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
  });

  it("accepts a JSON body with a charset parameter", async () => {
    const response = await server.rest("POST", "/customers", {
      token: account.token,
      body: { name: "Charset" },
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(response.status).toBe(201);
  });

  it("413 above the 5 MiB body limit, and nothing stored", async () => {
    const big = { name: "Huge", taxId: "x".repeat(5 * 1024 * 1024) };
    expectError(await server.rest("POST", "/customers", { token: account.token, body: big }), 413, "PAYLOAD_TOO_LARGE");
    expect((await server.rest("GET", "/customers/name/Huge", { token: account.token })).status).toBe(404);
  });

  it("400 for JSON values nested too deep, not a 500", async () => {
    let value: unknown = "leaf";
    for (let i = 0; i < 200; i += 1) value = { v: value };
    expectError(
      await server.rest("POST", "/customers", {
        token: account.token,
        body: { name: "Deep", customFields: [{ serviceCustomFieldName: "d", value }] },
      }),
      400,
      "BAD_REQUEST",
    );
  });

  it.each(["0", "1001", "-1", "2.5", "abc", ""])("400 for limit=%s", async (limit) => {
    expectError(await server.rest("GET", `/customers?limit=${limit}`, { token: account.token }), 400, "BAD_REQUEST");
  });

  it.each(["garbage", "djE6bm90LWFuLWlk", "%24ne", `${Buffer.from(`v1:${"f".repeat(24)}`).toString("base64url")}x`])(
    "400 for a malformed cursor %s",
    async (cursor) => {
      expectError(
        await server.rest("GET", `/customers?cursor=${cursor}`, { token: account.token }),
        400,
        "BAD_REQUEST",
      );
    },
  );

  it("404 for unknown ids, names and routes; operator-like values are data", async () => {
    expectError(
      await server.rest("GET", "/customers/0123456789abcdef01234567", { token: account.token }),
      404,
      "NOT_FOUND",
    );
    expectError(await server.rest("GET", "/customers/name/Nobody", { token: account.token }), 404, "NOT_FOUND");
    expectError(
      await server.rest("PATCH", "/customers/nobody", { token: account.token, body: { taxId: "x" } }),
      404,
      "NOT_FOUND",
    );
    expectError(
      await server.rest("GET", `/customers/${encodeURIComponent('{"$ne":null}')}`, { token: account.token }),
      404,
      "NOT_FOUND",
    );
    expectError(
      await server.rest("GET", "/customers/name/%7B%22%24ne%22%3Anull%7D", { token: account.token }),
      404,
      "NOT_FOUND",
    );
    expectError(await server.rest("GET", "/nowhere", { token: account.token }), 404, "NOT_FOUND");
    expectError(await server.rest("GET", "/customers/%E0%A4%A", { token: account.token }), 400, "BAD_REQUEST");
  });
});

describe("customer errors over tRPC carry the same codes", () => {
  it("BAD_REQUEST, NOT_FOUND, CONFLICT", async () => {
    const client = server.trpc(account.token);
    expect(await trpcErrorCode(client.customers.create.mutate({ name: 5 as unknown as string }))).toBe("BAD_REQUEST");
    expect(await trpcErrorCode(client.customers.get.query({ customerId: "missing" }))).toBe("NOT_FOUND");
    await client.customers.create.mutate({ name: "T-dup" });
    expect(await trpcErrorCode(client.customers.create.mutate({ name: "T-dup" }))).toBe("CONFLICT");
    expect(await trpcErrorCode(client.customers.list.query({ limit: 0 }))).toBe("BAD_REQUEST");
    expect(await trpcErrorCode(client.customers.list.query({ cursor: "garbage" }))).toBe("BAD_REQUEST");
  });
});
