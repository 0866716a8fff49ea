import { describe, expect, it } from "vitest";
import { ConflictError, NotFoundError } from "../src/index.js";
import { inSequence, newClient, PAGINATION, useTestServer, walk } from "./helpers.js";

const ctx = useTestServer();

describe("customers", () => {
  it("creates a customer and reads it back by id, by externalId and by name", async () => {
    const { client, token } = await newClient(ctx.server);
    const created = await client.customers.create({
      name: "Acme Corp",
      externalId: "crm-42",
      aliases: ["acme"],
      contacts: [{ name: "Ada", email: "ada@acme.test" }],
      address: { country: "FR", city: "Lyon" },
      dueDays: "END_OF_MONTH",
    });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: "Acme Corp",
      externalId: "crm-42",
      aliases: ["acme"],
      contacts: [{ name: "Ada", email: "ada@acme.test" }],
      address: { country: "FR", city: "Lyon" },
      dueDays: "END_OF_MONTH",
      createdAt: expect.stringMatching(/Z$/),
    });

    expect(await client.customers.get(created.id)).toEqual(created);
    expect(await client.customers.get("crm-42")).toEqual(created);
    expect(await client.customers.getByName("Acme Corp")).toEqual(created);
    // The REST API serves the same customer.
    expect((await ctx.server.rest("GET", `/customers/${created.id}`, { token })).body.customer).toEqual(created);
    // Another account sees nothing of it.
    const { client: stranger } = await newClient(ctx.server);
    await expect(stranger.customers.get(created.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("matches names exactly and case-sensitively", async () => {
    const { client } = await newClient(ctx.server);
    await client.customers.create({ name: "Exact Name" });
    await expect(client.customers.getByName("exact name")).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.customers.getByName("Exact")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("updates only the fields given and keeps the others", async () => {
    const { client } = await newClient(ctx.server);
    const created = await client.customers.create({ name: "Before", taxId: "FR123", source: "stripe" });
    const updated = await client.customers.update(created.id, { name: "After", taxId: "FR999" });
    expect(updated).toMatchObject({
      id: created.id,
      name: "After",
      taxId: "FR999",
      source: "stripe",
      createdAt: created.createdAt,
    });
    expect(await client.customers.get(created.id)).toEqual(updated);
    await expect(client.customers.getByName("Before")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("refuses a taken name on create and on update", async () => {
    const { client } = await newClient(ctx.server);
    await client.customers.create({ name: "Taken" });
    const other = await client.customers.create({ name: "Other" });
    await expect(client.customers.create({ name: "Taken" })).rejects.toBeInstanceOf(ConflictError);
    await expect(client.customers.update(other.id, { name: "Taken" })).rejects.toBeInstanceOf(ConflictError);
    expect((await client.customers.list()).total).toBe(2);
  });

  it("lists one page with total, hasMore and nextCursor", async () => {
    const { client } = await newClient(ctx.server);
    const created = await inSequence(3, (i) => client.customers.create({ name: `C${i}` }));
    const first = await client.customers.list({ limit: 2 });
    expect(first).toMatchObject({ total: 3, hasMore: true, nextCursor: expect.any(String) });
    expect(first.customers.map((c) => c.id)).toEqual(created.slice(0, 2).map((c) => c.id));
    const last = await client.customers.list({ limit: 2, cursor: first.nextCursor });
    expect(last).toMatchObject({ total: 3, hasMore: false });
    expect(last.nextCursor).toBeUndefined();
    expect(last.customers.map((c) => c.id)).toEqual([created[2]!.id]);
    expect((await client.customers.list()).customers).toHaveLength(3);
  });

  it("walks every customer once, in creation order, across pages", async () => {
    const { client } = await newClient(ctx.server);
    const created = await inSequence(PAGINATION.count, (i) => client.customers.create({ name: `Customer ${i}` }));
    const ids = created.map((c) => c.id);

    const items = [];
    for await (const customer of client.customers.listAll({ limit: PAGINATION.limit })) items.push(customer);
    expect(items.map((c) => c.id)).toEqual(ids);
    expect(items).toEqual(created);

    const walked = await walk(client.customers.listAll({ limit: PAGINATION.limit }), (page) => page.customers);
    expect(walked.pageSizes).toEqual(PAGINATION.pageSizes);
    expect(walked.ids).toEqual(ids);

    expect((await client.customers.listAll({ limit: PAGINATION.limit }).toArray()).map((c) => c.id)).toEqual(ids);
    // Without a limit, one page of the SDK's default size holds all 25.
    expect(await walk(client.customers.listAll(), (page) => page.customers)).toEqual({ pageSizes: [25], ids });
  });
});
