import { describe, expect, it } from "vitest";
import { NotFoundError, ValidationError } from "../src/index.js";
import { inSequence, newClient, PAGINATION, rejectionOf, unknownId, useTestServer, walk } from "./helpers.js";

const ctx = useTestServer();

async function withCustomer() {
  const setup = await newClient(ctx.server);
  const customer = await setup.client.customers.create({ name: "Credited" });
  return { ...setup, customerId: customer.id };
}

describe("credits", () => {
  it("grants credits and keeps an exact running balance", async () => {
    const { client, customerId } = await withCustomer();
    const first = await client.credits.grant({
      customerId,
      amount: 0.1,
      type: "Grant",
      contractId: "k-1",
      erpId: "erp-1",
    });
    expect(first).toMatchObject({
      id: expect.any(String),
      customerId,
      type: "Grant",
      amount: 0.1,
      balanceAfterEntry: 0.1,
      contractId: "k-1",
      erpId: "erp-1",
      integrationEntities: [],
    });
    const second = await client.credits.grant({ customerId, amount: 0.2, type: "Grant" });
    expect(second.balanceAfterEntry).toBe(0.3);
    expect(await client.credits.list({ customerId })).toEqual({ entries: [first, second] });
  });

  it("refuses a grant that is not positive, or for an unknown customer, and writes nothing", async () => {
    const { client, customerId } = await withCustomer();
    const zero = await rejectionOf(client.credits.grant({ customerId, amount: 0, type: "Grant" }));
    expect(zero).toBeInstanceOf(ValidationError);
    expect((zero as ValidationError).issues.map((issue) => issue.path)).toEqual(["amount"]);
    await expect(client.credits.grant({ customerId: unknownId(), amount: 1, type: "Grant" })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(client.credits.list({ customerId: unknownId() })).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: "Customer not found",
    });
    expect((await client.credits.list({ customerId })).entries).toEqual([]);
  });

  it("lists one page at a time with the last entry's id as cursor", async () => {
    const { client, customerId } = await withCustomer();
    const granted = await inSequence(3, (i) => client.credits.grant({ customerId, amount: i + 1, type: "Grant" }));
    const first = await client.credits.list({ customerId, limit: 2 });
    expect(first.entries).toEqual(granted.slice(0, 2));
    expect((await client.credits.list({ customerId, limit: 2, cursor: first.entries[1]!.id })).entries).toEqual([
      granted[2],
    ]);
  });

  it("walks the whole ledger once, oldest first, across pages", async () => {
    const { client, customerId } = await withCustomer();
    const granted = await inSequence(PAGINATION.count, (i) =>
      client.credits.grant({ customerId, amount: i + 1, type: "Grant" }),
    );
    const ids = granted.map((entry) => entry.id);

    const items = [];
    for await (const entry of client.credits.listAll({ customerId, limit: PAGINATION.limit })) items.push(entry);
    expect(items).toEqual(granted);
    // 1 + 2 + … + 25
    expect(items.at(-1)?.balanceAfterEntry).toBe(325);

    const walked = await walk(client.credits.listAll({ customerId, limit: PAGINATION.limit }), (page) => page.entries);
    expect(walked).toEqual({ pageSizes: PAGINATION.pageSizes, ids });
    expect((await client.credits.listAll({ customerId, limit: PAGINATION.limit }).toArray()).map((e) => e.id)).toEqual(
      ids,
    );
  });

  it("ends on an empty page when the ledger fills the last page exactly", async () => {
    const { client, customerId } = await withCustomer();
    const granted = await inSequence(8, (i) => client.credits.grant({ customerId, amount: i + 1, type: "Grant" }));
    const walked = await walk(client.credits.listAll({ customerId, limit: 4 }), (page) => page.entries);
    expect(walked).toEqual({ pageSizes: [4, 4, 0], ids: granted.map((entry) => entry.id) });
  });
});
