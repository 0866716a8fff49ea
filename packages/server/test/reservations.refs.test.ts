import { MongoClient } from "mongodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createRepositories } from "../src/repositories/index.js";
import { REF_CLAIM_SETTLE_MS, RESERVATIONS_PER_REF_STEP } from "../src/repositories/reservations.js";
import { billingAccount, monthly } from "./support/billing.js";
import { startTestServer, type TestServer } from "./support/server.js";

/**
 * A reservation's ref is decided in its chain by the slot's insert (its writer read the chain's slots of that ref), and
 * across the account's chains by its claim at the first settlement (`reservationRefs`, `_id` `<account>/<ref>`): no
 * unique index on the reservations, so that one account's reservations can be sharded by chain (issue 48,
 * docs/scaling.md), and one insert per reservation (issue 51).
 */
let server: TestServer;
/** A client of the test's own (not the service's): what it writes to stage a crash or an old database is no shape. */
let raw: MongoClient;
beforeAll(async () => {
  server = await startTestServer();
  raw = await MongoClient.connect(inject("mongodbUri"));
});
afterAll(async () => {
  await raw.close();
  await server.close();
});

const lastYear = new Date(Date.UTC(new Date().getUTCFullYear() - 1, 0, 1)).toISOString();

/** An account whose customer commits to `units` of the SUM meter `tokens` a month. */
async function limitedAccount(alias: string, units = 100) {
  const account = await billingAccount(server, { aliases: [alias] });
  await account.post("/meters", { key: "tokens", eventName: "llm", aggregation: "SUM", valueProperty: "n" }, 201);
  await account.contract({
    startDate: lastYear,
    products: [
      { displayName: "LLM", catalogProductId: "tokens", scheduling: monthly(1), commitment: { units, price: 1 } },
    ],
  });
  const reserve = (body: Record<string, unknown>) =>
    server.rest("POST", `/customers/${account.customerId}/reservations`, {
      token: account.token,
      body: { meterKey: "tokens", ttlSeconds: 600, ...body },
    });
  const settle = (reservation: { id: string }, amount: number) =>
    server.rest("POST", `/reservations/${reservation.id}/settle`, { token: account.token, body: { amount } });
  return { ...account, reserve, settle };
}

const db = () => raw.db(server.service.db.databaseName);

describe("a reservation's ref once per account: in its chain by its slot, across chains by its claim", () => {
  it("six reservations of one ref at once: one admitted, five refused holding nothing", async () => {
    const account = await limitedAccount("refs-race");
    const results = await Promise.all(Array.from({ length: 6 }, () => account.reserve({ amount: 60, ref: "same" })));
    expect(results.map(({ status }) => status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    for (const refused of results.filter(({ status }) => status === 409))
      expect(refused.body.issues).toEqual([{ path: "ref", message: "already used" }]);
    // Limit 100: the one admitted holds 60, the refused none, so 40 fits exactly and 0.000001 more does not.
    expect((await account.reserve({ amount: 40, ref: "rest" })).status).toBe(201);
    expect((await account.reserve({ amount: 0.000001, ref: "over" })).status).toBe(409);
  });

  it("a refusal by the limit writes nothing: the ref is free for a reservation that fits", async () => {
    const account = await limitedAccount("refs-limit");
    // 100.000001 > 100: LIMIT_REACHED, and no slot is written.
    const over = await account.reserve({ amount: 100.000001, ref: "big" });
    expect(over.status).toBe(409);
    expect(over.body.issues[0].path).toBe("amount");
    expect((await account.reserve({ amount: 100, ref: "big" })).status).toBe(201);
  });

  it("a claim an earlier version's crash left stands while young, is taken over when old", async () => {
    const account = await limitedAccount("refs-crash");
    const claims = db().collection<{ _id: string; chain: string }>("reservationRefs");
    const leftover = (ref: string, ageMs: number) => ({
      _id: `${account.accountId}/${ref}`,
      ...{ accountId: account.accountId, ref, chain: "a-chain-never-written", token: "crashed" },
      claimedAt: new Date(Date.now() - ageMs),
    });
    await claims.insertMany([leftover("young", 1_000), leftover("old", REF_CLAIM_SETTLE_MS + 1_000)]);
    // Held either way (the claim is read at settlement only): the young claim keeps its ref's usage, the old is taken.
    const young = (await account.reserve({ amount: 1, ref: "young" })).body.reservation;
    expect((await account.settle(young, 1)).status).toBe(409);
    const old = (await account.reserve({ amount: 1, ref: "old" })).body.reservation;
    expect((await account.settle(old, 1)).status).toBe(200);
    expect((await claims.findOne({ _id: `${account.accountId}/old` }))?.chain).toBe(old.id.slice(0, 24));
  });

  it("a database from before ref claims: refs stay unique while a bounded, resumable step claims them", async () => {
    const account = await limitedAccount("refs-legacy");
    const slots = db().collection<{ _id: string }>("reservations");
    const stored = new Date("2024-05-01T00:00:00Z");
    // What the version before claims stored: slots (of a chain of their own), their unique index, no claims.
    const legacy = Array.from({ length: RESERVATIONS_PER_REF_STEP + 1 }, (_, index) => ({
      _id: `legacy-chain_${index + 1}`,
      accountId: account.accountId,
      customerId: account.customerId,
      meterKey: "tokens",
      customerAlias: "refs-legacy",
      chain: "legacy-chain",
      n: index + 1,
      amountMicros: 1,
      ref: `legacy-${index}`,
      periodStart: stored,
      periodEnd: stored,
      expiresAt: stored,
      holdUntil: stored,
      createdAt: stored,
    }));
    await slots.insertMany(legacy);
    await slots.createIndex({ accountId: 1, ref: 1 }, { unique: true });
    await db().collection("reservation_migrations").deleteMany({});
    const claims = db().collection<{ _id: string }>("reservationRefs");
    const claimIds = legacy.map(({ ref }) => `${account.accountId}/${ref}`);
    const claimed = async () => (await claims.find({ _id: { $in: claimIds } }).toArray()).length;

    // Before any step: a stored ref is refused by the old unique index, and the refusal leaves no claim.
    expect((await account.reserve({ amount: 1, ref: "legacy-0" })).status).toBe(409);
    expect(await claimed()).toBe(0);

    const step = () => createRepositories(server.service.db).reservations.claimStoredRefs();
    const every = await slots.countDocuments({});
    expect(await step()).toBe(Math.min(every, RESERVATIONS_PER_REF_STEP));
    // A lost progress (a crash before it was saved): the step redoes its page, claiming nothing twice.
    await db().collection("reservation_migrations").deleteMany({});
    let steps = 0;
    let read = 0;
    for (let count = await step(); count > 0; count = await step()) {
      steps += 1;
      read += count;
    }
    expect(read).toBe(every);
    expect(steps).toBe(Math.ceil(every / RESERVATIONS_PER_REF_STEP));
    expect(await claimed()).toBe(RESERVATIONS_PER_REF_STEP + 1);
    expect(await db().collection("reservation_migrations").findOne({})).toMatchObject({ done: true });
    expect((await slots.indexes()).map(({ name }) => name)).not.toContain("accountId_1_ref_1");
    expect(await step()).toBe(0);

    // After: the claims decide. A legacy ref (another chain's) is held but cannot be settled; a new one can.
    const legacyRef = await account.reserve({ amount: 1, ref: `legacy-${RESERVATIONS_PER_REF_STEP}` });
    expect(legacyRef.status).toBe(201);
    expect((await account.settle(legacyRef.body.reservation, 1)).status).toBe(409);
    const fresh = await account.reserve({ amount: 1, ref: "fresh" });
    expect((await account.settle(fresh.body.reservation, 1)).status).toBe(200);
  });

  // Last: its two slots of one ref in one account would fail the legacy test's making of the old unique index.
  it("a ref of another chain (another meter) is held, but only the first settled records usage under it", async () => {
    const account = await limitedAccount("refs-chains");
    await account.post("/meters", { key: "images", eventName: "img", aggregation: "SUM", valueProperty: "n" }, 201);
    const tokens = (await account.reserve({ amount: 60, ref: "shared" })).body.reservation;
    const images = (await account.reserve({ meterKey: "images", amount: 5, ref: "shared" })).body.reservation;
    // Two chains (a reservation's id is `<chain>_<n>`, the chain 24 characters).
    expect(tokens.id.slice(0, 24)).not.toBe(images.id.slice(0, 24));
    expect((await account.settle(images, 3)).status).toBe(200);
    const refused = await account.settle(tokens, 7);
    expect(refused.status).toBe(409);
    expect(refused.body.issues).toEqual([{ path: "id", message: "its ref is another reservation's" }]);
    // Usage under ref "shared": the images' 3 alone; tokens' usage 0 (its 60 held until its TTL).
    const events = await server.rest("GET", `/events?startTime=2020-01-01T00:00:00Z&endTime=2100-01-01T00:00:00Z`, {
      token: account.token,
    });
    expect(events.body.events.map((event: any) => [event.name, event.ref, event.data])).toEqual([
      ["img", "shared", { n: "3" }],
    ]);
    // Settling the images' again answers the same: its claim of the ref is its own.
    expect((await account.settle(images, 3)).status).toBe(200);
  });
});
