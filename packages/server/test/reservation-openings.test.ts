import { MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { billingAccount, monthly } from "./support/billing.js";
import { startTestServer, type TestServer } from "./support/server.js";

/**
 * A customer's open reservations (its stream's) are read through its openings (`reservationOpenings`: its chains per
 * day of expiry, keyed by customer), then by chain: on a cluster keyed `{ chain: "hashed" }` no read goes to every
 * shard (issue 48). A database from before openings is read as before until the upkeep worker noted its slots.
 */
let server: TestServer;
/** A client of the test's own (not the service's): what it writes to stage an old database is no shape. */
let raw: MongoClient;
beforeAll(async () => {
  server = await startTestServer();
  raw = await MongoClient.connect(inject("mongodbUri"));
});
afterAll(async () => {
  await raw.close();
  await server.close();
});

const db = () => raw.db(server.service.db.databaseName);
const lastYear = new Date(Date.UTC(new Date().getUTCFullYear() - 1, 0, 1)).toISOString();

describe("a customer's open reservations, by its openings", () => {
  it("are the same before the openings' migration (read by customer) and after it (read by chain)", async () => {
    const account = await billingAccount(server, { aliases: ["openings"] });
    await account.post("/meters", { key: "tokens", eventName: "llm", aggregation: "SUM", valueProperty: "n" }, 201);
    await account.contract({
      startDate: lastYear,
      products: [
        {
          displayName: "LLM",
          catalogProductId: "tokens",
          scheduling: monthly(1),
          commitment: { units: 100, price: 1 },
        },
      ],
    });
    const reserve = async (ref: string, ttlSeconds: number) => {
      const body = { meterKey: "tokens", amount: 1, ttlSeconds, ref };
      const created = await server.rest("POST", `/customers/${account.customerId}/reservations`, {
        token: account.token,
        body,
      });
      expect(created.status).toBe(201);
      return created.body.reservation.id as string;
    };
    // Soonest to expire first: 60 s, then 600 s (both of one chain: one limit, one cycle).
    const later = await reserve("later", 600);
    const sooner = await reserve("sooner", 60);
    const open = async () =>
      (
        await server.service.repositories.reservations.openOf(account.accountId, account.customerId, new Date(), {
          limit: 100,
          scan: 500,
        })
      ).map(({ _id }) => _id);

    // A database from before openings: none stored, its migration not done.
    await db().collection("reservationOpenings").deleteMany({});
    await db()
      .collection<{ _id: string; done: boolean }>("reservation_migrations")
      .updateOne({ _id: "openings-noted" }, { $set: { done: false }, $unset: { after: "" } }, { upsert: true });
    expect(await open()).toEqual([sooner, later]);

    // The upkeep worker's steps: a page of slots (one chain, noted once per day of expiry), then none left.
    await server.service.upkeep.tick();
    await server.service.upkeep.tick();
    const migration = await db()
      .collection("reservation_migrations")
      .findOne({ _id: "openings-noted" as never });
    expect(migration).toMatchObject({ done: true });
    const openings = await db().collection("reservationOpenings").find({}).toArray();
    expect(new Set(openings.map(({ chain }) => chain)).size).toBe(1);
    expect(openings.every(({ customerId }) => customerId === account.customerId)).toBe(true);

    expect(await open()).toEqual([sooner, later]);
    // A reservation made now writes its opening before its slot: listed at once.
    const third = await reserve("third", 300);
    expect(await open()).toEqual([sooner, third, later]);
  });
});
