import type { InvoiceDraft } from "@billing/shared";
import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { useAccount, useTestServer } from "./support/harness.js";
import { invoiceDraft as draft, insertInvoice } from "./support/invoices.js";
import { newId, trpcErrorCode } from "./support/server.js";

const server = useTestServer();
const account = useAccount(server);

const insert = (accountId: string, draft: InvoiceDraft) => insertInvoice(server, accountId, draft);

describe("invoice list errors", () => {
  it.each(["0", "1001", "-1", "2.5", "abc", ""])("400 for limit=%s, naming limit", async (limit) => {
    const response = await server.rest("GET", `/invoices?limit=${limit}`, { token: account.token });
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.issues.map((issue: { path: string }) => issue.path)).toEqual(["limit"]);
  });

  it.each(["garbage", "djE6bm90LWFuLWlk", "%24ne", `${Buffer.from(`v1:${"f".repeat(24)}`).toString("base64url")}x`])(
    "400 for a malformed cursor %s",
    async (cursor) => {
      expectError(await server.rest("GET", `/invoices?cursor=${cursor}`, { token: account.token }), 400, "BAD_REQUEST");
    },
  );

  it("400 for empty filters; operator-like filters are data that match nothing", async () => {
    await insert(account.accountId, draft());
    expectError(await server.rest("GET", "/invoices?customerId=", { token: account.token }), 400, "BAD_REQUEST");
    expectError(await server.rest("GET", "/invoices?contractId=", { token: account.token }), 400, "BAD_REQUEST");
    const operator = await server.rest("GET", `/invoices?customerId=${encodeURIComponent('{"$ne":null}')}`, {
      token: account.token,
    });
    expect(operator.status).toBe(200);
    expect(operator.body).toEqual({ invoices: [], total: 0, hasMore: false });
  });

  it("401 without a token", async () => {
    expectError(await server.rest("GET", "/invoices"), 401, "UNAUTHORIZED");
    expect(await trpcErrorCode(server.trpc().invoices.list.query({}))).toBe("UNAUTHORIZED");
  });

  it("the same codes over tRPC", async () => {
    const client = server.trpc(account.token);
    for (const limit of [0, 1001, -1, 2.5])
      expect(await trpcErrorCode(client.invoices.list.query({ limit }))).toBe("BAD_REQUEST");
    expect(await trpcErrorCode(client.invoices.list.query({ limit: "abc" as unknown as number }))).toBe("BAD_REQUEST");
    expect(await trpcErrorCode(client.invoices.list.query({ cursor: "garbage" }))).toBe("BAD_REQUEST");
    expect(await trpcErrorCode(client.invoices.list.query({ customerId: "" }))).toBe("BAD_REQUEST");
  });
});

describe("invoice get errors", () => {
  it("404 for unknown, malformed and operator-like ids", async () => {
    for (const id of [newId(), "nope", encodeURIComponent('{"$ne":null}'), "0123456789ABCDEF0123456z"]) {
      expectError(await server.rest("GET", `/invoices/${id}`, { token: account.token }), 404, "NOT_FOUND");
    }
    expect(await trpcErrorCode(server.trpc(account.token).invoices.get.query({ invoiceId: newId() }))).toBe(
      "NOT_FOUND",
    );
  });

  it("no route writes invoices", async () => {
    const response = await server.rest("POST", "/invoices", { token: account.token, body: draft() });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET");
  });
});
