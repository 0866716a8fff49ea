import { MAX_ALIASES_PER_CUSTOMER } from "@billing/shared";
import { ObjectId } from "mongodb";
import { describe, expect, it } from "vitest";
import { watchEveryClient } from "../src/db/connect.js";
import { encodeCursor } from "../src/db/pagination.js";
import { ALIAS_CLAIM_SETTLE_MS } from "../src/repositories/customer-aliases.js";
import { createRepositories } from "../src/repositories/index.js";
import { expectError } from "./support/assertions.js";
import { useTestServer } from "./support/harness.js";
import { writesTo } from "./support/stored-writes.js";

/** The filters of the customers' reads the service sends (its client is watched from its start). */
const customerReads: Record<string, unknown>[] = [];
watchEveryClient((client) =>
  client.on("commandStarted", ({ commandName, command }) => {
    if (commandName === "find" && command.find === "customers") customerReads.push(command.filter);
  }),
);
const server = useTestServer();
const readsByAlias = () => customerReads.filter((filter) => "aliases" in filter);

/** What a database from before alias claims has: their migration not started. */
const notMigrated = () =>
  server.service.db
    .collection("customer_migrations")
    .updateOne({ _id: "aliases-claimed" } as never, { $set: { done: false }, $unset: { after: "" } }, { upsert: true });

async function account() {
  const { token, accountId } = await server.newAccount();
  const create = (body: unknown) => server.rest("POST", "/customers", { token, body });
  const update = (id: string, body: unknown) => server.rest("PATCH", `/customers/${id}`, { token, body });
  return { token, accountId, create, update };
}

describe("customer aliases are unique per account", () => {
  it("a creation or rename refused for a taken name or alias writes nothing, not a claim taken back", async () => {
    const { create, update } = await account();
    await create({ name: "Taken", aliases: ["held"] });
    const other = (await create({ name: "Other" })).body.customer;
    const writes = writesTo(server.service.db.databaseName);
    expectError(await create({ name: "Taken", aliases: ["fresh-1"] }), 409, "CONFLICT");
    expectError(await create({ name: "New", aliases: ["fresh-2", "held"] }), 409, "CONFLICT");
    expectError(await update(other.id, { name: "Taken", aliases: ["fresh-3"] }), 409, "CONFLICT");
    expect(writes.changedSince()).toEqual([]);
  });

  it("409 when creating or updating a customer with an alias another customer holds; nothing is written", async () => {
    const { create, update, token } = await account();
    const first = (await create({ name: "First", aliases: ["shared", "first-only"] })).body.customer;
    const refused = await create({ name: "Second", aliases: ["second-only", " shared "] });
    expectError(refused, 409, "CONFLICT");
    expect((await server.rest("GET", "/customers/name/Second", { token })).status).toBe(404);
    // The refused creation released "second-only": a third customer may take it.
    const third = (await create({ name: "Third", aliases: ["second-only"] })).body.customer;
    expectError(await update(third.id, { aliases: ["second-only", "first-only"] }), 409, "CONFLICT");
    expect((await server.rest("GET", `/customers/${third.id}`, { token })).body.customer.aliases).toEqual([
      "second-only",
    ]);
    // Re-sending one's own aliases is no conflict.
    expect((await update(first.id, { aliases: ["shared", "first-only"], name: "First again" })).status).toBe(200);
  });

  it("at most 100 aliases a customer (its usage read stays index-served): 101 is a 400 naming aliases", async () => {
    const { create, update } = await account();
    const names = (count: number) => Array.from({ length: count }, (_, index) => `alias-${index + 1}`);
    expect(MAX_ALIASES_PER_CUSTOMER).toBe(100);
    const refused = await create({ name: "Too many", aliases: names(101) });
    expectError(refused, 400, "BAD_REQUEST");
    expect(refused.body.issues.map((issue: { path: string }) => issue.path)).toEqual(["aliases"]);
    const full = await create({ name: "Full", aliases: names(100), externalId: "full-external" });
    expect(full.status).toBe(201);
    expect(full.body.customer.aliases).toHaveLength(100);
    const grown = await update(full.body.customer.id, { aliases: [...names(100), "one-more"] });
    expectError(grown, 400, "BAD_REQUEST");
    expect(grown.body.issues.map((issue: { path: string }) => issue.path)).toEqual(["aliases"]);
  });

  it("an alias removed from one customer is free for another", async () => {
    const { create, update } = await account();
    const holder = (await create({ name: "Holder", aliases: ["moving"] })).body.customer;
    expectError(await create({ name: "Taker", aliases: ["moving"] }), 409, "CONFLICT");
    expect((await update(holder.id, { aliases: [] })).status).toBe(200);
    expect((await create({ name: "Taker", aliases: ["moving"] })).status).toBe(201);
  });

  it("400 for an alias listed twice", async () => {
    const response = await (await account()).create({ name: "Twice", aliases: ["x", "x "] });
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.issues).toEqual([{ path: "aliases", message: "must not list an alias twice" }]);
  });

  it("concurrent creations with one alias: exactly one wins", async () => {
    const { create } = await account();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, index) => create({ name: `Racer ${index}`, aliases: ["contested"] })),
    );
    expect(results.map((result) => result.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
  });

  it("a claim left by a crashed write blocks while it may be in progress, and is taken over once settled", async () => {
    const { create, accountId } = await account();
    const claims = server.service.db.collection("customerAliases");
    // What a server that died between claiming and writing its customer leaves behind.
    const leftover = (claimedAt: Date) =>
      ({ _id: `${accountId}/orphan`, accountId, alias: "orphan", customerId: new ObjectId(), claimedAt }) as never;
    await claims.insertOne(leftover(new Date()));
    expectError(await create({ name: "Too early", aliases: ["orphan"] }), 409, "CONFLICT");
    await claims.deleteOne({ _id: `${accountId}/orphan` } as never);
    await claims.insertOne(leftover(new Date(Date.now() - ALIAS_CLAIM_SETTLE_MS - 1000)));
    const created = await create({ name: "Later", aliases: ["orphan"] });
    expect(created.status).toBe(201);
    expect((await claims.findOne({ _id: `${accountId}/orphan` } as never))?.customerId.toHexString()).toBe(
      created.body.customer.id,
    );
  });

  it("a customer stored before claims existed still holds its aliases", async () => {
    const { create, accountId } = await account();
    const now = new Date();
    // A database from before alias claims: their migration not done (a database without customers starts done).
    await notMigrated();
    await server.service.db
      .collection("customers")
      .insertOne({ accountId, name: "Legacy", aliases: ["old"], createdAt: now, updatedAt: now });
    expectError(await create({ name: "Newcomer", aliases: ["old"] }), 409, "CONFLICT");
  });
});

describe("customer aliases through their claims once every alias is claimed (issue 48)", () => {
  /** The upkeep's steps claiming stored aliases, to the end: how many customers they read. */
  const claimStoredAliases = async () => {
    const step = () => createRepositories(server.service.db).customers.claimStoredAliases();
    let read = 0;
    for (let count = await step(); count > 0; count = await step()) read += count;
    return read;
  };

  it("a creation's check and the list by alias read no customer by alias: its claim, then `_id`", async () => {
    const { create, update, token } = await account();
    await claimStoredAliases();
    customerReads.length = 0;
    const holder = (await create({ name: "Holder", aliases: ["routed-a", "routed-b"] })).body.customer;
    expectError(await create({ name: "Second", aliases: ["routed-a"] }), 409, "CONFLICT");
    expect((await update(holder.id, { aliases: ["routed-b"] })).status).toBe(200);
    const list = (query: string) => server.rest("GET", `/customers?${query}`, { token });
    expect((await list("alias=routed-b")).body).toMatchObject({ customers: [{ id: holder.id }], total: 1 });
    expect((await list("alias=routed-a")).body).toMatchObject({ customers: [], total: 0, hasMore: false });
    // A cursor at its holder: an empty page, the total still counting it (as the read of the customers answered).
    const cursor = encodeCursor(new ObjectId(holder.id));
    expect((await list(`alias=routed-b&cursor=${cursor}`)).body).toMatchObject({ customers: [], total: 1 });
    // On a cluster keyed { accountId: 1, _id: "hashed" }, a read by alias would ask every shard; by `_id`, one.
    expect(readsByAlias()).toEqual([]);
    expect(customerReads.length).toBeGreaterThan(0);
  });

  it("a database from before alias claims: a bounded, resumable step claims them, then the claims decide", async () => {
    const { create, token, accountId } = await account();
    const db = server.service.db;
    const stored = new Date("2024-05-01T00:00:00Z");
    const legacy = { _id: new ObjectId(), accountId, name: "Old", aliases: ["old-1", "old-2"], createdAt: stored };
    await db.collection("customers").insertOne({ ...legacy, updatedAt: stored });
    await notMigrated();
    expectError(await create({ name: "Early", aliases: ["old-1"] }), 409, "CONFLICT");

    const everyCustomer = (await db.collection("customers").find({}).sort({ _id: 1 }).toArray()).length;
    expect(await claimStoredAliases()).toBe(everyCustomer);
    expect(await db.collection("customerAliases").findOne({ _id: `${accountId}/old-2` } as never)).toMatchObject({
      customerId: legacy._id,
    });

    customerReads.length = 0;
    expectError(await create({ name: "Late", aliases: ["old-2"] }), 409, "CONFLICT");
    const listed = await server.rest("GET", "/customers?alias=old-1", { token });
    expect(listed.body.customers.map(({ id }: { id: string }) => id)).toEqual([legacy._id.toHexString()]);
    expect(readsByAlias()).toEqual([]);
  });
});
