import { ObjectId } from "mongodb";
import type { InvoiceDraft } from "@billing/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, trpcErrorCode, type TestServer } from "./support/server.js";
import { expectError } from "./support/assertions.js";

let server: TestServer;
let accountId: string;
let token: string;

beforeAll(async () => {
  server = await startTestServer();
  ({ accountId, token } = await server.newAccount());
});
afterAll(() => server.close());

const newId = () => new ObjectId().toHexString();
const insert = (account: string, draft: InvoiceDraft) => server.service.repositories.invoices.insert(account, draft);

const breakdown = (total: number) => ({ total, subtotal: total, overage: 0, discount: 0, creditsUsed: 0, tax: 0 });
const draft = (fields: Partial<InvoiceDraft> = {}): InvoiceDraft => ({
  customerId: newId(),
  contractId: newId(),
  name: "Invoice",
  billingCycle: { startTime: "2024-01-01T00:00:00Z", endTime: "2024-02-01T00:00:00Z" },
  revenueBreakdown: breakdown(5),
  billingStatus: "None",
  dueDate: "2024-02-29T00:00:00Z",
  amount: 5,
  lineItems: [{ name: "Seat", kind: "ONE_TIME", revenueBreakdown: breakdown(5) }],
  ...fields,
});

describe("invoice list errors", () => {
  it.each(["0", "1001", "-1", "2.5", "abc", ""])("400 for limit=%s, naming limit", async (limit) => {
    const response = await server.rest("GET", `/invoices?limit=${limit}`, { token });
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.issues.map((issue: { path: string }) => issue.path)).toEqual(["limit"]);
  });

  it.each(["garbage", "djE6bm90LWFuLWlk", "%24ne", Buffer.from("v1:" + "f".repeat(24)).toString("base64url") + "x"])(
    "400 for a malformed cursor %s",
    async (cursor) => {
      expectError(await server.rest("GET", `/invoices?cursor=${cursor}`, { token }), 400, "BAD_REQUEST");
    },
  );

  it("400 for empty filters; operator-like filters are data that match nothing", async () => {
    await insert(accountId, draft());
    expectError(await server.rest("GET", "/invoices?customerId=", { token }), 400, "BAD_REQUEST");
    expectError(await server.rest("GET", "/invoices?contractId=", { token }), 400, "BAD_REQUEST");
    const operator = await server.rest("GET", `/invoices?customerId=${encodeURIComponent('{"$ne":null}')}`, { token });
    expect(operator.status).toBe(200);
    expect(operator.body).toEqual({ invoices: [], total: 0, hasMore: false });
  });

  it("401 without a token", async () => {
    expectError(await server.rest("GET", "/invoices"), 401, "UNAUTHORIZED");
    expect(await trpcErrorCode(server.trpc().invoices.list.query({}))).toBe("UNAUTHORIZED");
  });

  it("the same codes over tRPC", async () => {
    const client = server.trpc(token);
    for (const limit of [0, 1001, -1, 2.5]) expect(await trpcErrorCode(client.invoices.list.query({ limit }))).toBe("BAD_REQUEST");
    expect(await trpcErrorCode(client.invoices.list.query({ limit: "abc" as unknown as number }))).toBe("BAD_REQUEST");
    expect(await trpcErrorCode(client.invoices.list.query({ cursor: "garbage" }))).toBe("BAD_REQUEST");
    expect(await trpcErrorCode(client.invoices.list.query({ customerId: "" }))).toBe("BAD_REQUEST");
  });
});

describe("invoice get errors", () => {
  it("404 for unknown, malformed and operator-like ids", async () => {
    for (const id of [newId(), "nope", encodeURIComponent('{"$ne":null}'), "0123456789ABCDEF0123456z"]) {
      expectError(await server.rest("GET", `/invoices/${id}`, { token }), 404, "NOT_FOUND");
    }
    expect(await trpcErrorCode(server.trpc(token).invoices.get.query({ invoiceId: newId() }))).toBe("NOT_FOUND");
  });

  it("no route writes invoices", async () => {
    const response = await server.rest("POST", "/invoices", { token, body: draft() });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET");
  });
});

describe("drafts the repository refuses", () => {
  it.each<[string, Partial<InvoiceDraft>]>([
    ["more than 6 decimals", { amount: 0.0000001, revenueBreakdown: breakdown(0.0000001) }],
    ["a negative amount", { amount: -1, revenueBreakdown: breakdown(-1) }],
    ["amount other than revenueBreakdown.total", { amount: 4 }],
    ["a cycle that ends before it starts", { billingCycle: { startTime: "2024-02-01T00:00:00Z", endTime: "2024-01-01T00:00:00Z" } }],
    ["a customerId that is no service id", { customerId: "cus_1" }],
  ])("%s, storing nothing", async (_, fields) => {
    const { accountId: own, token: ownToken } = await server.newAccount();
    await expect(insert(own, draft(fields))).rejects.toThrow();
    expect((await server.rest("GET", "/invoices", { token: ownToken })).body.total).toBe(0);
  });

  it("unknown fields, e.g. a caller-chosen id", async () => {
    await expect(insert(accountId, { ...draft(), id: newId() } as InvoiceDraft)).rejects.toThrow(/id/);
  });
});

describe("tenant isolation", () => {
  it("another account never sees, gets or counts an account's invoices, even by its customer or contract", async () => {
    const alice = await server.newAccount();
    const bob = await server.newAccount();
    const customerId = (await server.rest("POST", "/customers", { token: alice.token, body: { name: "Alice's" } })).body.customer.id;
    const contractId = newId();
    const alices = [];
    for (const startTime of ["2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z"]) {
      const endTime = new Date(Date.parse(startTime) + 86_400_000).toISOString();
      alices.push((await insert(alice.accountId, draft({ customerId, contractId, billingCycle: { startTime, endTime } }))).invoice);
    }
    const [first] = alices;
    const bobsOwn = await insert(bob.accountId, draft());
    // The once-per-cycle rule is per account: Bob's identical cycle is a new invoice of his own.
    const bobsCopy = await insert(bob.accountId, draft({ customerId, contractId, billingCycle: first!.billingCycle }));
    expect(bobsCopy.created).toBe(true);
    expect(bobsCopy.invoice.id).not.toBe(first!.id);

    expectError(await server.rest("GET", `/invoices/${first!.id}`, { token: bob.token }), 404, "NOT_FOUND");
    expect(await trpcErrorCode(server.trpc(bob.token).invoices.get.query({ invoiceId: first!.id }))).toBe("NOT_FOUND");

    const bobList = (await server.rest("GET", "/invoices?limit=1000", { token: bob.token })).body;
    expect(bobList.total).toBe(2);
    expect(bobList.invoices.map((invoice: { id: string }) => invoice.id)).toEqual([bobsOwn.invoice.id, bobsCopy.invoice.id]);

    const byCustomer = (await server.rest("GET", `/invoices?customerId=${customerId}`, { token: bob.token })).body;
    expect(byCustomer).toMatchObject({ total: 1, invoices: [{ id: bobsCopy.invoice.id }] });
    const viaTrpc = await server.trpc(bob.token).invoices.list.query({ customerId, contractId });
    expect(viaTrpc.invoices.map((invoice) => invoice.id)).toEqual([bobsCopy.invoice.id]);
    expect(viaTrpc.total).toBe(1);

    const aliceCursor = (await server.rest("GET", "/invoices?limit=1", { token: alice.token })).body.nextCursor;
    const fromCursor = (await server.rest("GET", `/invoices?cursor=${aliceCursor}`, { token: bob.token })).body;
    expect(fromCursor.invoices.map((invoice: { accountId: string }) => invoice.accountId)).not.toContain(alice.accountId);
    expect(fromCursor.total).toBe(2);

    expect((await server.rest("GET", `/invoices?customerId=${customerId}`, { token: alice.token })).body.total).toBe(3);
  });
});
