import { describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, ValidationError } from "../src/index.js";
import { inSequence, newClient, PAGINATION, rejectionOf, unknownId, useTestServer, walk } from "./helpers.js";

const ctx = useTestServer();

async function withCustomer() {
  const setup = await newClient(ctx.server);
  const customer = await setup.client.customers.create({ name: "Contract holder" });
  return { ...setup, customerId: customer.id };
}

describe("contracts", () => {
  it("creates a contract with the server's defaults and reads it back", async () => {
    const { client, customerId } = await withCustomer();
    const contract = await client.contracts.create({
      customerId,
      name: "Annual plan",
      startDate: "2024-01-01T00:00:00+02:00",
      products: [{ displayName: "Seats", pricing: { type: "ONE_TIME", price: 99.5 } }],
    });
    expect(contract).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      customerId,
      name: "Annual plan",
      startDate: "2023-12-31T22:00:00.000Z",
      products: [{ displayName: "Seats", pricing: { type: "ONE_TIME", price: 99.5 } }],
      status: "Active",
      shouldProRateInvoices: false,
      autoRenewContract: true,
    });
    expect(contract.deletedAt).toBeUndefined();
    expect(await client.contracts.get(contract.id)).toEqual(contract);
  });

  it("refuses a contract for an unknown customer and an end before the start", async () => {
    const { client, customerId } = await withCustomer();
    const missing = await rejectionOf(
      client.contracts.create({ customerId: unknownId(), name: "x", startDate: "2024-01-01T00:00:00Z" }),
    );
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ code: "NOT_FOUND", message: "Customer not found" });

    const backwards = await rejectionOf(
      client.contracts.create({
        customerId,
        name: "x",
        startDate: "2024-02-01T00:00:00Z",
        endDate: "2024-01-01T00:00:00Z",
      }),
    );
    expect(backwards).toBeInstanceOf(ValidationError);
    expect((backwards as ValidationError).issues).toEqual([
      { path: "endDate", message: "must fall on a later UTC day than startDate (contracts cover whole days)" },
    ]);
    expect((await client.contracts.list()).total).toBe(0);
  });

  it("soft-deletes a contract: Terminated with deletedAt, then out of get, list and total", async () => {
    const { client, customerId } = await withCustomer();
    const kept = await client.contracts.create({ customerId, name: "Kept", startDate: "2024-01-01T00:00:00Z" });
    const doomed = await client.contracts.create({ customerId, name: "Doomed", startDate: "2024-01-01T00:00:00Z" });

    const deleted = await client.contracts.delete(doomed.id);
    expect(deleted).toMatchObject({
      id: doomed.id,
      name: "Doomed",
      status: "Terminated",
      deletedAt: expect.stringMatching(/Z$/),
    });

    await expect(client.contracts.get(doomed.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.contracts.delete(doomed.id)).rejects.toBeInstanceOf(NotFoundError);
    const page = await client.contracts.list();
    expect(page.total).toBe(1);
    expect(page.contracts.map((c) => c.id)).toEqual([kept.id]);
    expect((await client.contracts.listAll().toArray()).map((c) => c.id)).toEqual([kept.id]);
  });

  it("lists one page with total, hasMore and nextCursor", async () => {
    const { client, customerId } = await withCustomer();
    const created = await inSequence(3, (i) =>
      client.contracts.create({ customerId, name: `K${i}`, startDate: "2024-01-01T00:00:00Z" }),
    );
    const first = await client.contracts.list({ limit: 2 });
    expect(first).toMatchObject({ total: 3, hasMore: true, nextCursor: expect.any(String) });
    expect(first.contracts.map((c) => c.id)).toEqual(created.slice(0, 2).map((c) => c.id));
    const last = await client.contracts.list({ limit: 2, cursor: first.nextCursor });
    expect(last).toMatchObject({ total: 3, hasMore: false, contracts: [created[2]] });
    expect(last.nextCursor).toBeUndefined();
  });

  it("walks every contract once, in creation order, across pages", async () => {
    const { client, customerId } = await withCustomer();
    const created = await inSequence(PAGINATION.count, (i) =>
      client.contracts.create({ customerId, name: `Contract ${i}`, startDate: "2024-01-01T00:00:00Z" }),
    );
    const ids = created.map((c) => c.id);

    const items = [];
    for await (const contract of client.contracts.listAll({ limit: PAGINATION.limit })) items.push(contract);
    expect(items).toEqual(created);

    const walked = await walk(client.contracts.listAll({ limit: PAGINATION.limit }), (page) => page.contracts);
    expect(walked).toEqual({ pageSizes: PAGINATION.pageSizes, ids });
    expect((await client.contracts.listAll({ limit: PAGINATION.limit }).toArray()).map((c) => c.id)).toEqual(ids);
  });

  it("pauses, resumes and terminates a contract, and reads its history", async () => {
    const { client, customerId } = await withCustomer();
    const contract = await client.contracts.create({ customerId, name: "Living", startDate: "2024-01-01T00:00:00Z" });
    const paused = await client.contracts.update(contract.id, {
      status: "Inactive",
      effectiveFrom: "2024-02-10T00:00:00Z",
    });
    expect(paused).toMatchObject({ status: "Inactive", inactivePeriods: [{ from: "2024-02-10T00:00:00.000Z" }] });
    const illegal = await rejectionOf(client.contracts.update(contract.id, { status: "Inactive" }));
    expect(illegal).toBeInstanceOf(ConflictError);
    expect((illegal as ConflictError).message).toContain("The contract is Inactive and cannot become Inactive");
    expect(await client.contracts.update(contract.id, { status: "Active" })).toMatchObject({ status: "Active" });
    const ended = await client.contracts.terminate(contract.id, { reason: "done" });
    expect(ended).toMatchObject({ status: "Terminated", terminationReason: "done" });
    const history = await client.contracts.history(contract.id);
    expect(history.map(({ from, to }) => [from, to])).toEqual([
      ["Active", "Inactive"],
      ["Inactive", "Active"],
      ["Active", "Terminated"],
    ]);
    await expect(client.contracts.history(unknownId())).rejects.toBeInstanceOf(NotFoundError);
  });

  it("amends the terms from a day: a new version, the amendment in the history", async () => {
    const { client, customerId } = await withCustomer();
    const flat = (price: number) => ({ displayName: "Platform", pricing: { type: "FLAT" as const, price } });
    const contract = await client.contracts.create({
      customerId,
      name: "Amended",
      startDate: "2024-01-01T00:00:00Z",
      products: [flat(100)],
    });
    expect(contract.version).toBe(1);
    const amended = await client.contracts.update(contract.id, {
      products: [flat(160)],
      effectiveFrom: "2024-02-10T00:00:00Z",
    });
    expect(amended).toMatchObject({
      version: 2,
      termsEffectiveFrom: "2024-02-10T00:00:00.000Z",
      products: [{ pricing: { price: 160 } }],
    });
    const [entry] = await client.contracts.history(contract.id);
    expect(entry).toMatchObject({ kind: "amendment", fields: ["products"] });
  });
});
