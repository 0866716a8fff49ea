import { ObjectId } from "mongodb";
import { describe, expect, it } from "vitest";
import { watchEveryClient } from "../src/db/connect.js";
import { CUSTOMERS_PER_CLAIM_STEP as CUSTOMERS_PER_NAME_STEP } from "../src/repositories/customer-claim-migrations.js";
import { createRepositories } from "../src/repositories/index.js";
import { expectError } from "./support/assertions.js";
import { useTestServer } from "./support/harness.js";

/**
 * A customer's name is decided by its claim (`customerNames`, `_id` `<account>/<name>`), not by a unique index on
 * the customers, so that the customers of one account can be sharded by `_id` (issue 48, docs/scaling.md).
 */
/** The filters of the customers' reads the service sends (its client is watched from its start). */
const customerReads: Record<string, unknown>[] = [];
watchEveryClient((client) =>
  client.on("commandStarted", ({ commandName, command }) => {
    if (commandName === "find" && command.find === "customers") customerReads.push(command.filter);
  }),
);
const server = useTestServer();

async function account() {
  const { token, accountId } = await server.newAccount();
  const create = (body: unknown) => server.rest("POST", "/customers", { token, body });
  const update = (id: string, body: unknown) => server.rest("PATCH", `/customers/${id}`, { token, body });
  return { token, accountId, create, update };
}

describe("customer names are unique per account, decided by their claims", () => {
  it("concurrent creations with one name: exactly one wins", async () => {
    const { create } = await account();
    const results = await Promise.all(Array.from({ length: 6 }, () => create({ name: "Contested" })));
    expect(results.map((result) => result.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
  });

  it("concurrent renames to one name: exactly one wins; a rename frees the name it had", async () => {
    const { create, update } = await account();
    const ids = await Promise.all(
      ["A", "B", "C", "D"].map(async (name) => (await create({ name })).body.customer.id as string),
    );
    const results = await Promise.all(ids.map((id) => update(id, { name: "Wanted" })));
    expect(results.map((result) => result.status).sort()).toEqual([200, 409, 409, 409]);
    // The winner's old name is free again; the losers kept theirs.
    const winner = ids[results.findIndex((result) => result.status === 200)];
    const freed = ["A", "B", "C", "D"][ids.indexOf(winner!)];
    expect((await create({ name: freed })).status).toBe(201);
    const kept = ["A", "B", "C", "D"].find((name) => name !== freed)!;
    expectError(await create({ name: kept }), 409, "CONFLICT");
  });

  it("once every name is claimed, a name is checked and found by its claim and `_id`: no read by name", async () => {
    // A database without customers is migrated from the start: every name has its claim.
    const { token, create, update } = await account();
    customerReads.length = 0;
    const created = await create({ name: "Routed", aliases: ["routed-1"] });
    expect(created.status).toBe(201);
    expectError(await create({ name: "Routed" }), 409, "CONFLICT");
    const other = (await create({ name: "Other" })).body.customer.id as string;
    expectError(await update(other, { name: "Routed" }), 409, "CONFLICT");
    expect((await update(other, { name: "Renamed" })).status).toBe(200);
    const found = await server.rest("GET", "/customers/name/Routed", { token });
    expect(found.status).toBe(200);
    expect(found.body.customer.id).toBe(created.body.customer.id);
    expect((await server.rest("GET", "/customers/name/Other", { token })).status).toBe(404);
    expect((await server.rest("GET", "/customers/name/Renamed", { token })).body.customer.id).toBe(other);
    // On a cluster keyed { accountId: 1, _id: "hashed" }, a read by name would ask every shard; by `_id`, one.
    expect(customerReads.filter((filter) => "name" in filter)).toEqual([]);
    expect(customerReads.length).toBeGreaterThan(0);
  });

  it("a database from before name claims: names stay unique while a bounded, resumable step claims them", async () => {
    const { accountId, create, update } = await account();
    const db = server.service.db;
    const stored = new Date("2024-05-01T00:00:00Z");
    // What the version before claims stored: customers, no claims, the migration not started.
    const legacy = Array.from({ length: CUSTOMERS_PER_NAME_STEP + 1 }, (_, index) => ({
      _id: new ObjectId(),
      accountId,
      name: `Legacy ${index}`,
      createdAt: stored,
      updatedAt: stored,
    }));
    await db.collection("customers").insertMany(legacy);
    await db.collection("customer_migrations").deleteMany({});
    // Read as the service reads them (by `_id`), so that this test adds no query shape of its own to the index proof.
    const claimIds = legacy.map(({ name }) => `${accountId}/${name}`);
    const claimsOfAccount = async () =>
      (
        await db
          .collection<{ _id: string }>("customerNames")
          .find({ _id: { $in: claimIds } })
          .toArray()
      ).length;

    // Before any step: a stored name is still refused (read from the customers), and the refusal claims nothing.
    expectError(await create({ name: "Legacy 0" }), 409, "CONFLICT");
    expect(await claimsOfAccount()).toBe(0);

    const step = () => createRepositories(db).customers.claimStoredNames();
    const everyCustomer = (await db.collection("customers").find({}).sort({ _id: 1 }).toArray()).length;
    expect(await step()).toBe(Math.min(everyCustomer, CUSTOMERS_PER_NAME_STEP));
    // A lost progress (a crash before it was saved): the step redoes its page, claiming nothing twice.
    await db.collection("customer_migrations").deleteMany({});
    let steps = 0;
    let read = 0;
    for (let count = await step(); count > 0; count = await step()) {
      steps += 1;
      read += count;
    }
    expect(read).toBe(everyCustomer);
    expect(steps).toBe(Math.ceil(everyCustomer / CUSTOMERS_PER_NAME_STEP));
    expect(await claimsOfAccount()).toBe(CUSTOMERS_PER_NAME_STEP + 1);
    expect(await db.collection("customer_migrations").findOne({})).toMatchObject({ done: true });
    expect(await step()).toBe(0);

    // After: the claims decide. A legacy name is taken; renaming a legacy customer frees its old name.
    expectError(await create({ name: `Legacy ${CUSTOMERS_PER_NAME_STEP}` }), 409, "CONFLICT");
    expect((await update(legacy[1]!._id.toHexString(), { name: "Renamed" })).status).toBe(200);
    expect((await create({ name: "Legacy 1" })).status).toBe(201);
    expectError(await create({ name: "Renamed" }), 409, "CONFLICT");
  });
});
