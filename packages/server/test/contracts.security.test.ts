import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, trpcErrorCode, type TestServer } from "./support/server.js";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** An account with one customer and `count` contracts of it. */
async function tenantWithContracts(count: number) {
  const { token } = await server.newAccount();
  const customerId = (await server.rest("POST", "/customers", { token, body: { name: "Shared Name" } })).body.customer.id as string;
  const contractIds: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const { body } = await server.rest("POST", "/contracts", { token, body: { startDate: "2024-01-01T00:00:00Z", customerId, name: `c${i}` } });
    contractIds.push(body.contract.id);
  }
  return { token, customerId, contractIds };
}

describe("contract tenant isolation", () => {
  it("one account never sees, deletes or counts another's contracts", async () => {
    const alice = await tenantWithContracts(3);
    const bob = await tenantWithContracts(1);
    const aliceContract = alice.contractIds[0]!;
    const before = (await server.rest("GET", `/contracts/${aliceContract}`, { token: alice.token })).body.contract;

    expect((await server.rest("GET", `/contracts/${aliceContract}`, { token: bob.token })).status).toBe(404);
    expect((await server.rest("DELETE", `/contracts/${aliceContract}`, { token: bob.token })).status).toBe(404);
    const bobList = (await server.rest("GET", "/contracts?limit=1000", { token: bob.token })).body;
    expect(bobList.total).toBe(1);
    expect(bobList.contracts.map((c: { id: string }) => c.id)).toEqual(bob.contractIds);

    const after = await server.rest("GET", `/contracts/${aliceContract}`, { token: alice.token });
    expect(after.body.contract).toEqual(before);
    expect((await server.rest("GET", "/contracts", { token: alice.token })).body.total).toBe(3);

    const bobTrpc = server.trpc(bob.token);
    expect(await trpcErrorCode(bobTrpc.contracts.get.query({ contractId: aliceContract }))).toBe("NOT_FOUND");
    expect(await trpcErrorCode(bobTrpc.contracts.delete.mutate({ contractId: aliceContract }))).toBe("NOT_FOUND");
    expect((await bobTrpc.contracts.list.query({})).total).toBe(1);
    expect((await server.trpc(alice.token).contracts.get.query({ contractId: aliceContract })).contract.status).toBe("Active");
  });

  it("a contract cannot reference another account's customer: 404 as if it did not exist, over REST and tRPC", async () => {
    const alice = await tenantWithContracts(0);
    const bob = await tenantWithContracts(0);
    const response = await server.rest("POST", "/contracts", { token: bob.token, body: { startDate: "2024-01-01T00:00:00Z", customerId: alice.customerId, name: "Hijack" } });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ code: "NOT_FOUND", message: "Customer not found" });
    const viaTrpc = server.trpc(bob.token).contracts.create.mutate({ startDate: "2024-01-01T00:00:00Z", customerId: alice.customerId, name: "Hijack" });
    expect(await trpcErrorCode(viaTrpc)).toBe("NOT_FOUND");
    expect((await server.rest("GET", "/contracts", { token: bob.token })).body.total).toBe(0);
    expect((await server.rest("GET", "/contracts", { token: alice.token })).body.total).toBe(0);
  });

  it("a cursor from another account's list only pages within the caller's data", async () => {
    const alice = await tenantWithContracts(3);
    const bob = await tenantWithContracts(2);
    const cursor = (await server.rest("GET", "/contracts?limit=1", { token: alice.token })).body.nextCursor;
    const { status, body } = await server.rest("GET", `/contracts?cursor=${cursor}`, { token: bob.token });
    expect(status).toBe(200);
    expect(body.total).toBe(2);
    expect(body.contracts.map((c: { id: string }) => c.id).every((id: string) => bob.contractIds.includes(id))).toBe(true);
  });
});
