import { describe, expect, it } from "vitest";
import { FULL_CUSTOMER } from "./support/fixtures.js";
import { useAccount, useTestServer } from "./support/harness.js";
import { walkRestPages } from "./support/server.js";

const server = useTestServer();
const account = useAccount(server);

describe("customers over REST", () => {
  it("creates a customer with every field and returns 201 with id and timestamps", async () => {
    const { status, body } = await server.rest("POST", "/customers", { token: account.token, body: FULL_CUSTOMER });
    expect(status).toBe(201);
    expect(body.customer).toMatchObject(FULL_CUSTOMER);
    expect(body.customer.id).toMatch(/^[0-9a-f]{24}$/);
    expect(body.customer.createdAt).toBe(body.customer.updatedAt);
    expect(new Date(body.customer.createdAt).toISOString()).toBe(body.customer.createdAt);
  });

  it("gets a customer by id, by externalId and by exact name (URL-encoded)", async () => {
    const created = (
      await server.rest("POST", "/customers", {
        token: account.token,
        body: { name: "Zeta & Co / EU", externalId: "ext zeta" },
      })
    ).body.customer;
    const byId = await server.rest("GET", `/customers/${created.id}`, { token: account.token });
    expect(byId.status).toBe(200);
    expect(byId.body.customer).toEqual(created);
    const byExternal = await server.rest("GET", `/customers/${encodeURIComponent("ext zeta")}`, {
      token: account.token,
    });
    expect(byExternal.body.customer.id).toBe(created.id);
    const byName = await server.rest("GET", `/customers/name/${encodeURIComponent("Zeta & Co / EU")}`, {
      token: account.token,
    });
    expect(byName.status).toBe(200);
    expect(byName.body.customer.id).toBe(created.id);
  });

  it("matches names exactly: other case or a prefix is 404", async () => {
    await server.rest("POST", "/customers", { token: account.token, body: { name: "Exact Name" } });
    expect((await server.rest("GET", "/customers/name/exact%20name", { token: account.token })).status).toBe(404);
    expect((await server.rest("GET", "/customers/name/Exact", { token: account.token })).status).toBe(404);
  });

  it("prefers the service id over an externalId equal to another customer's id", async () => {
    const first = (await server.rest("POST", "/customers", { token: account.token, body: { name: "First" } })).body
      .customer;
    await server.rest("POST", "/customers", { token: account.token, body: { name: "Impostor", externalId: first.id } });
    const { body } = await server.rest("GET", `/customers/${first.id}`, { token: account.token });
    expect(body.customer.name).toBe("First");
  });

  it("updates given fields, keeps the others, moves updatedAt", async () => {
    const created = (
      await server.rest("POST", "/customers", {
        token: account.token,
        body: { name: "Patchable", taxId: "T1", source: "Stripe" },
      })
    ).body.customer;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const { status, body } = await server.rest("PATCH", `/customers/${created.id}`, {
      token: account.token,
      body: { taxId: "T2" },
    });
    expect(status).toBe(200);
    expect(body.customer).toMatchObject({
      id: created.id,
      name: "Patchable",
      taxId: "T2",
      source: "Stripe",
      createdAt: created.createdAt,
    });
    expect(body.customer.updatedAt > created.updatedAt).toBe(true);
    expect((await server.rest("GET", `/customers/${created.id}`, { token: account.token })).body.customer.taxId).toBe(
      "T2",
    );
  });

  it("lists customers with total, hasMore and an opaque cursor, each once, in creation order", async () => {
    const { token: own } = await server.newAccount();
    const names = Array.from({ length: 23 }, (_, i) => `c-${String(i).padStart(2, "0")}`);
    const created: string[] = [];
    for (const name of names)
      created.push((await server.rest("POST", "/customers", { token: own, body: { name } })).body.customer.id);
    const walk = await walkRestPages(server, own, "/customers", "customers", 5);
    expect(walk.ids).toEqual(created);
    expect(walk.pages).toBe(5);
    expect(new Set(walk.totals)).toEqual(new Set([23]));
    const first = await server.rest("GET", "/customers", { token: own });
    expect(first.body.customers).toHaveLength(10);
    expect(first.body.hasMore).toBe(true);
    expect(first.body.nextCursor).not.toContain(created[9]);
  });

  it("lists the customer listing an alias (an alias names one customer), exactly; an empty alias is 400", async () => {
    const { token: own } = await server.newAccount();
    const create = async (name: string, aliases: string[]) =>
      (await server.rest("POST", "/customers", { token: own, body: { name, aliases } })).body.customer.id;
    const [eu] = [await create("eu", ["eu", "x"]), await create("us", ["us"])];
    const found = await server.rest("GET", "/customers?alias=eu", { token: own });
    expect(found.body).toMatchObject({ total: 1, hasMore: false });
    expect(found.body.customers.map(({ id }: { id: string }) => id)).toEqual([eu]);
    const other = await server.rest("GET", "/customers?alias=EU", { token: own });
    expect(other.body).toMatchObject({ customers: [], total: 0, hasMore: false });
    const empty = await server.rest("GET", "/customers?alias=", { token: own });
    expect(empty.status).toBe(400);
    expect(empty.body.issues).toEqual([expect.objectContaining({ path: "alias" })]);
  });

  it("serves limit=1000 and an exact last page", async () => {
    const { token: own } = await server.newAccount();
    for (const name of ["a", "b"]) await server.rest("POST", "/customers", { token: own, body: { name } });
    const { body } = await server.rest("GET", "/customers?limit=1000", { token: own });
    expect(body).toMatchObject({ total: 2, hasMore: false });
    expect(body).not.toHaveProperty("nextCursor");
    const exact = await server.rest("GET", "/customers?limit=2", { token: own });
    expect(exact.body.hasMore).toBe(false);
  });
});

describe("customers over tRPC", () => {
  it("creates, updates, gets and lists through the same procedures", async () => {
    const client = server.trpc(account.token);
    const { customer } = await client.customers.create.mutate({ name: "Via tRPC", externalId: "trpc-1" });
    expect(customer.name).toBe("Via tRPC");
    const updated = await client.customers.update.mutate({ customerId: "trpc-1", crmAccountId: "crm-9" });
    expect(updated.customer).toMatchObject({ id: customer.id, crmAccountId: "crm-9" });
    expect((await client.customers.get.query({ customerId: customer.id })).customer.crmAccountId).toBe("crm-9");
    expect((await client.customers.getByName.query({ name: "Via tRPC" })).customer.id).toBe(customer.id);
    const page = await client.customers.list.query({ limit: 1000 });
    expect(page.customers.map((c) => c.id)).toContain(customer.id);
    expect(page.total).toBe(page.customers.length);
  });

  it("keeps body numbers and booleans strict after REST requests ran", async () => {
    await server.rest("GET", "/customers?limit=5", { token: account.token });
    const client = server.trpc(account.token);
    await expect(
      client.customers.create.mutate({
        name: "Strict",
        contacts: [{ receiveInvoiceEmail: "false" as unknown as boolean }],
      }),
    ).rejects.toMatchObject({ data: { code: "BAD_REQUEST" } });
    const rest = await server.rest("POST", "/customers", {
      token: account.token,
      body: { name: "Strict", contacts: [{ receiveInvoiceEmail: "false" }] },
    });
    expect(rest.status).toBe(400);
  });
});
