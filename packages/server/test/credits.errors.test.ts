import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { useAccount, useTestServer } from "./support/harness.js";
import { trpcErrorCode } from "./support/server.js";

const server = useTestServer();
const account = useAccount(server, { customer: { name: "Credited" } });

async function newCustomer(ownToken: string): Promise<string> {
  const { body } = await server.rest("POST", "/customers", {
    token: ownToken,
    body: { name: `c-${randomBytes(4).toString("hex")}` },
  });
  return body.customer.id;
}

const issuePaths = (body: { issues?: { path: string }[] }) => body.issues?.map((issue) => issue.path);

const grant = (body: unknown, ownToken = account.token) => server.rest("POST", "/credits", { token: ownToken, body });
const list = (query: string, ownToken = account.token) => server.rest("GET", `/credits?${query}`, { token: ownToken });
const entriesOf = async (id: string, ownToken = account.token) =>
  (await list(`customerId=${id}&limit=1000`, ownToken)).body.entries;

describe("granting: 400 for invalid bodies, nothing written", () => {
  it.each([
    ["amount 0", { amount: 0 }, "amount"],
    ["a negative amount", { amount: -5 }, "amount"],
    ["7 decimal places", { amount: 1.0000001 }, "amount"],
    ["more than 1e9", { amount: 1_000_000_000.5 }, "amount"],
    ["an amount as a string", { amount: "5" }, "amount"],
    ["no amount", { amount: undefined }, "amount"],
    ["type Usage", { type: "Usage" }, "type"],
    ["another type", { type: "Refund" }, "type"],
    ["no type", { type: undefined }, "type"],
    ["an empty contractId", { contractId: "" }, "contractId"],
    ["an over-long invoiceId", { invoiceId: "x".repeat(201) }, "invoiceId"],
    ["no customerId", { customerId: undefined }, "customerId"],
  ])("%s", async (_, change, path) => {
    const response = await grant({ customerId: account.customerId, amount: 1, type: "Grant", ...change });
    expectError(response, 400, "BAD_REQUEST");
    expect(issuePaths(response.body)).toContain(path);
    expect(await entriesOf(account.customerId)).toEqual([]);
  });

  it.each([["id"], ["balanceAfterEntry"], ["createdAt"], ["integrationEntities"], ["colour"]])(
    "unknown or response-only field %s",
    async (field) => {
      const response = await grant({ customerId: account.customerId, amount: 1, type: "Grant", [field]: "x" });
      expectError(response, 400, "BAD_REQUEST");
      expect(response.body.message).toContain(field);
      expect(await entriesOf(account.customerId)).toEqual([]);
    },
  );

  it("409 for a grant that would take the balance above 1e9 USD, which stays as it was", async () => {
    const own = await newCustomer(account.token);
    expect((await grant({ customerId: own, amount: 999_999_999.999999, type: "Grant" })).status).toBe(201);
    const response = await grant({ customerId: own, amount: 0.000002, type: "Grant" });
    expectError(response, 409, "CONFLICT");
    expect(issuePaths(response.body)).toEqual(["amount"]);
    expect((await grant({ customerId: own, amount: 0.000001, type: "Grant" })).body.entry.balanceAfterEntry).toBe(1e9);
    expect(await entriesOf(own)).toHaveLength(2);
  });

  it("400 for bad JSON and 415 for a body that is not JSON", async () => {
    expectError(await grant('{"customerId": "x"'), 400, "BAD_REQUEST");
    expectError(
      await server.rest("POST", "/credits", {
        token: account.token,
        body: "amount=1",
        headers: { "content-type": "text/plain" },
      }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
  });
});

describe("customers that are not the caller's: 404", () => {
  it.each([
    ["an unknown id", "0123456789abcdef01234567"],
    ["a name", "not-an-id"],
    ["an operator", '{"$ne":null}'],
  ])("%s", async (_, unknown) => {
    expectError(await grant({ customerId: unknown, amount: 1, type: "Grant" }), 404, "NOT_FOUND");
    expectError(await list(new URLSearchParams({ customerId: unknown }).toString()), 404, "NOT_FOUND");
  });
});

describe("listing: 400 for bad queries", () => {
  it.each(["0", "1001", "-1", "2.5", "abc", ""])("limit=%s", async (limit) => {
    const response = await list(`customerId=${account.customerId}&limit=${limit}`);
    expectError(response, 400, "BAD_REQUEST");
    expect(issuePaths(response.body)).toEqual(["limit"]);
  });

  it("no customerId", async () => {
    const response = await list("limit=5");
    expectError(response, 400, "BAD_REQUEST");
    expect(issuePaths(response.body)).toEqual(["customerId"]);
  });

  it("accepts limit 1 and 1000", async () => {
    expect((await list(`customerId=${account.customerId}&limit=1`)).status).toBe(200);
    expect((await list(`customerId=${account.customerId}&limit=1000`)).status).toBe(200);
  });

  it.each([
    ["malformed", "garbage", 400, "BAD_REQUEST"],
    ["an operator", "%7B%22%24ne%22%3Anull%7D", 400, "BAD_REQUEST"],
    ["an unknown id", "0123456789abcdef01234567", 404, "NOT_FOUND"],
  ] as const)("a cursor that is %s", async (_, cursor, status, code) => {
    const response = await list(`customerId=${account.customerId}&cursor=${cursor}`);
    expectError(response, status, code);
    expect(issuePaths(response.body)).toEqual(["cursor"]);
  });

  it("a cursor naming an entry of another customer", async () => {
    const [first, second] = [await newCustomer(account.token), await newCustomer(account.token)];
    const entry = (await grant({ customerId: first, amount: 1, type: "Grant" })).body.entry;
    await grant({ customerId: second, amount: 1, type: "Grant" });
    expect((await list(`customerId=${first}&cursor=${entry.id}`)).body).toEqual({ entries: [] });
    expectError(await list(`customerId=${second}&cursor=${entry.id}`), 404, "NOT_FOUND");
  });
});

describe("authentication", () => {
  it("401 without a token, before validation", async () => {
    expect((await server.rest("GET", `/credits?customerId=${account.customerId}`)).status).toBe(401);
    expect((await server.rest("POST", "/credits", { body: { amount: 0 } })).status).toBe(401);
  });
});

describe("credit errors over tRPC carry the same codes", () => {
  it("BAD_REQUEST, NOT_FOUND, UNAUTHORIZED", async () => {
    await list(`customerId=${account.customerId}&limit=5`); // after a REST request, tRPC bodies must stay strict
    const client = server.trpc(account.token);
    const asAmount = (value: unknown) => value as number;
    expect(
      await trpcErrorCode(
        client.credits.grant.mutate({ customerId: account.customerId, amount: asAmount("5"), type: "Grant" }),
      ),
    ).toBe("BAD_REQUEST");
    expect(
      await trpcErrorCode(client.credits.grant.mutate({ customerId: account.customerId, amount: 0, type: "Grant" })),
    ).toBe("BAD_REQUEST");
    expect(
      await trpcErrorCode(
        client.credits.grant.mutate({ customerId: account.customerId, amount: 1, type: "Usage" as "Grant" }),
      ),
    ).toBe("BAD_REQUEST");
    expect(
      await trpcErrorCode(
        client.credits.grant.mutate({ customerId: "0123456789abcdef01234567", amount: 1, type: "Grant" }),
      ),
    ).toBe("NOT_FOUND");
    expect(await trpcErrorCode(client.credits.list.query({ customerId: account.customerId, limit: 0 }))).toBe(
      "BAD_REQUEST",
    );
    expect(await trpcErrorCode(client.credits.list.query({ customerId: account.customerId, cursor: "garbage" }))).toBe(
      "BAD_REQUEST",
    );
    expect(await trpcErrorCode(client.credits.list.query({ customerId: "missing" }))).toBe("NOT_FOUND");
    expect(await trpcErrorCode(server.trpc().credits.list.query({ customerId: account.customerId }))).toBe(
      "UNAUTHORIZED",
    );
    expect(await entriesOf(account.customerId)).toEqual([]);
  });
});
