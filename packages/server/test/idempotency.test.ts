import { createTRPCClient, httpBatchLink, httpLink } from "@trpc/client";
import { ObjectId } from "mongodb";
import { afterEach, describe, expect, it, vi } from "vitest";
import { requestFingerprint } from "../src/middleware/idempotency.js";
import {
  IDEMPOTENCY_HEARTBEAT_MS,
  IDEMPOTENCY_RETENTION_MS,
  IDEMPOTENCY_SILENT_AFTER_MS,
} from "../src/repositories/idempotency-keys.js";
import type { AppRouter } from "../src/routers/index.js";
import { purgeExpiredRecords } from "../src/services/expiry-purge.js";
import { expectError } from "./support/assertions.js";
import { useTestServer } from "./support/harness.js";
import { testHooks } from "./support/hooks.js";
import { trpcErrorCode } from "./support/server.js";

const control = testHooks();
const server = useTestServer({ hooks: control.hooks });
afterEach(() => vi.restoreAllMocks());

let keys = 0;
const newKey = () => {
  keys += 1;
  return `key-${Date.now()}-${keys}`;
};

/** A REST POST (or other method) with an Idempotency-Key. */
const keyed = (token: string, key: string, method: string, path: string, body?: unknown) =>
  server.rest(method, path, { token, body, headers: { "idempotency-key": key } });

const replayed = (response: { headers: Headers }) => response.headers.get("idempotent-replayed") === "true";
const statusHeader = (response: { headers: Headers }) => response.headers.get("idempotency-status");

type ClaimRecord = {
  _id: string;
  fingerprint: string;
  attempt: ObjectId;
  createdAt: Date;
  aliveAt?: Date;
  expiresAt: Date;
};
const records = () => server.service.db.collection<ClaimRecord>("idempotencyKeys");
/** As if `ms` had passed since the key was claimed and its holder last said it was running. */
const ageClaim = (id: string, ms: number) =>
  records().updateOne(
    { _id: id },
    { $set: { createdAt: new Date(Date.now() - ms), aliveAt: new Date(Date.now() - ms) } },
  );
const ELEVEN_MINUTES = 11 * 60_000;

async function accountWithCustomer() {
  const { token, accountId } = await server.newAccount();
  const customerId = (await server.rest("POST", "/customers", { token, body: { name: "Base" } })).body.customer
    .id as string;
  return { token, accountId, customerId };
}

const countOf = (collection: string, accountId: string) =>
  server.service.db.collection(collection).countDocuments({ accountId });

describe("Idempotency-Key on REST", () => {
  it("a repeat returns the first response (status and body) and does nothing again", async () => {
    const { token, accountId } = await server.newAccount();
    const key = newKey();
    const first = await keyed(token, key, "POST", "/customers", { name: "Once", taxId: "T-1" });
    expect(first.status).toBe(201);
    expect(replayed(first)).toBe(false);
    // The same body with its keys in another order is the same request.
    const again = await keyed(token, key, "POST", "/customers", { taxId: "T-1", name: "Once" });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(replayed(again)).toBe(true);
    expect(await countOf("customers", accountId)).toBe(1);
  });

  it("a grant repeated with its key is granted once", async () => {
    const { token, customerId } = await accountWithCustomer();
    const key = newKey();
    const grant = { customerId, amount: 10, type: "Grant" };
    const answers = [
      await keyed(token, key, "POST", "/credits", grant),
      await keyed(token, key, "POST", "/credits", grant),
    ];
    expect(answers.map((a) => a.status)).toEqual([201, 201]);
    expect(answers[1]!.body).toEqual(answers[0]!.body);
    const ledger = (await server.rest("GET", `/credits?customerId=${customerId}`, { token })).body.entries;
    expect(ledger.map((e: { balanceAfterEntry: number }) => e.balanceAfterEntry)).toEqual([10]);
  });

  it("a repeated delete answers the first 200 instead of 404", async () => {
    const { token, customerId } = await accountWithCustomer();
    const contract = (
      await server.rest("POST", "/contracts", {
        token,
        body: { customerId, name: "C", startDate: "2024-01-01T00:00:00Z" },
      })
    ).body.contract;
    const key = newKey();
    const first = await keyed(token, key, "DELETE", `/contracts/${contract.id}`);
    const again = await keyed(token, key, "DELETE", `/contracts/${contract.id}`);
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body).toEqual(first.body);
    expect((await server.rest("DELETE", `/contracts/${contract.id}`, { token })).status).toBe(404);
  });

  it("the same key with another body, or another path, is 409 CONFLICT and does nothing", async () => {
    const { token, accountId, customerId } = await accountWithCustomer();
    const key = newKey();
    expect((await keyed(token, key, "POST", "/customers", { name: "First" })).status).toBe(201);
    const otherBody = await keyed(token, key, "POST", "/customers", { name: "Second" });
    expectError(otherBody, 409, "CONFLICT");
    expect(otherBody.body.message).toMatch(/different request/);
    expectError(await keyed(token, key, "POST", "/credits", { customerId, amount: 1, type: "Grant" }), 409, "CONFLICT");
    expect(await countOf("customers", accountId)).toBe(2);
    expect(await countOf("credit_entries", accountId)).toBe(0);
  });

  it("keys belong to the account: another account may use the same key", async () => {
    const alice = await server.newAccount();
    const bob = await server.newAccount();
    const key = newKey();
    const a = await keyed(alice.token, key, "POST", "/customers", { name: "Same" });
    const b = await keyed(bob.token, key, "POST", "/customers", { name: "Same" });
    expect([a.status, b.status, replayed(b)]).toEqual([201, 201, false]);
    expect(b.body.customer.id).not.toBe(a.body.customer.id);
  });

  it("the caller's mistakes (4xx) are kept and replayed", async () => {
    const { token, accountId } = await server.newAccount();
    const key = newKey();
    const grant = { customerId: "0123456789abcdef01234567", amount: 1, type: "Grant" };
    const first = await keyed(token, key, "POST", "/credits", grant);
    expectError(first, 404, "NOT_FOUND");
    const again = await keyed(token, key, "POST", "/credits", grant);
    expect([again.status, again.body, replayed(again)]).toEqual([404, first.body, true]);

    const invalidKey = newKey();
    const invalid = await keyed(token, invalidKey, "POST", "/customers", { name: "" });
    expectError(invalid, 400, "BAD_REQUEST");
    expect(await keyed(token, invalidKey, "POST", "/customers", { name: "" })).toMatchObject({
      status: 400,
      body: invalid.body,
    });
    expect(await countOf("customers", accountId)).toBe(0);
  });

  it("a 409 is not kept: once the conflict is gone, the same request with the same key runs", async () => {
    const { token } = await server.newAccount();
    const holder = (await server.rest("POST", "/customers", { token, body: { name: "Taken" } })).body.customer;
    const renamed = (await server.rest("POST", "/customers", { token, body: { name: "Other" } })).body.customer;
    const key = newKey();
    expectError(await keyed(token, key, "PATCH", `/customers/${renamed.id}`, { name: "Taken" }), 409, "CONFLICT");
    await server.rest("PATCH", `/customers/${holder.id}`, { token, body: { name: "Freed" } });
    const retried = await keyed(token, key, "PATCH", `/customers/${renamed.id}`, { name: "Taken" });
    expect([retried.status, retried.body.customer.name, replayed(retried)]).toEqual([200, "Taken", false]);
  });

  it("a 5xx may follow the call's effect: the key then answers 409 outcome-unknown, never running again", async () => {
    const { token, customerId } = await accountWithCustomer();
    const credits = server.service.repositories.credits;
    const realGrant = credits.grant.bind(credits);
    // The entry is stored, then the call fails: as when a write lands but its acknowledgement is lost.
    vi.spyOn(credits, "grant").mockImplementationOnce(async (...args) => {
      await realGrant(...args);
      throw new Error("connection reset after the write");
    });
    const key = newKey();
    const grant = { customerId, amount: 10, type: "Grant" };
    expectError(await keyed(token, key, "POST", "/credits", grant), 500, "INTERNAL_SERVER_ERROR");
    const retried = await keyed(token, key, "POST", "/credits", grant);
    expectError(retried, 409, "CONFLICT");
    expect(statusHeader(retried)).toBe("outcome-unknown");
    expect(retried.body.message).toMatch(/may or may not have taken effect.*new key/);
    const ledger = (await server.rest("GET", `/credits?customerId=${customerId}`, { token })).body.entries;
    expect(ledger.map((e: { balanceAfterEntry: number }) => e.balanceAfterEntry)).toEqual([10]);
  });

  it("a repeat while the first request is still running is 409, then the first response is replayed", async () => {
    const { token, accountId } = await server.newAccount();
    const customers = server.service.repositories.customers;
    const create = customers.create.bind(customers);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    vi.spyOn(customers, "create").mockImplementationOnce(async (...args) => {
      started();
      await released;
      return create(...args);
    });
    const key = newKey();
    const first = keyed(token, key, "POST", "/customers", { name: "Slow" });
    await running;
    const during = await keyed(token, key, "POST", "/customers", { name: "Slow" });
    expectError(during, 409, "CONFLICT");
    expect(during.body.message).toMatch(/still in progress/);
    expect(statusHeader(during)).toBe("in-progress");
    release();
    expect((await first).status).toBe(201);
    const after = await keyed(token, key, "POST", "/customers", { name: "Slow" });
    expect([after.status, after.body, replayed(after)]).toEqual([201, (await first).body, true]);
    expect(await countOf("customers", accountId)).toBe(1);
  });

  it("concurrent requests with one key run it once", async () => {
    const { token, customerId } = await accountWithCustomer();
    const key = newKey();
    const grant = { customerId, amount: 3, type: "Grant" };
    const answers = await Promise.all(Array.from({ length: 10 }, () => keyed(token, key, "POST", "/credits", grant)));
    const ran = answers.filter((a) => a.status === 201 && !replayed(a));
    expect(ran).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === 201) expect(answer.body).toEqual(ran[0]!.body);
      else expectError(answer, 409, "CONFLICT");
    }
    const ledger = (await server.rest("GET", `/credits?customerId=${customerId}`, { token })).body.entries;
    expect(ledger).toHaveLength(1);
  });

  it("refuses a malformed key with 400, and ignores keys on reads", async () => {
    const { token, accountId } = await server.newAccount();
    for (const key of ["x".repeat(256), "has space", "tab\tin"]) {
      expectError(await keyed(token, key, "POST", "/customers", { name: "Bad key" }), 400, "BAD_REQUEST");
    }
    expect((await keyed(token, "x".repeat(255), "POST", "/customers", { name: "Longest key" })).status).toBe(201);
    expect(await countOf("customers", accountId)).toBe(1);
    const read = newKey();
    expect((await keyed(token, read, "GET", "/customers")).status).toBe(200);
    expect((await keyed(token, read, "POST", "/customers", { name: "After a read" })).status).toBe(201);
  });
});

describe("key lifetime", () => {
  it("a key is remembered for 24 hours; past that its record is absent, whatever the database holds", async () => {
    const { token, accountId } = await server.newAccount();
    const key = newKey();
    await keyed(token, key, "POST", "/customers", { name: "Day one" });
    const justInside = new Date(Date.now() - IDEMPOTENCY_RETENTION_MS + 60_000);
    await records().updateOne({ _id: `${accountId}/${key}` }, { $set: { createdAt: justInside } });
    expect(replayed(await keyed(token, key, "POST", "/customers", { name: "Day one" }))).toBe(true);

    await records().updateOne(
      { _id: `${accountId}/${key}` },
      { $set: { createdAt: new Date(Date.now() - IDEMPOTENCY_RETENTION_MS - 1000) } },
    );
    const afterADay = await keyed(token, key, "POST", "/customers", { name: "Day two" });
    expect([afterADay.status, replayed(afterADay)]).toEqual([201, false]);
    expect(await countOf("customers", accountId)).toBe(2);
  });

  it("a key left in progress by a dead server never runs again: 409 in-progress, then outcome-unknown", async () => {
    const { token, accountId } = await server.newAccount();
    const key = newKey();
    const body = { name: "Stuck" };
    const fingerprint = requestFingerprint("customers.create", body);
    const now = new Date();
    const stuck = {
      _id: `${accountId}/${key}`,
      fingerprint,
      attempt: new ObjectId(),
      createdAt: now,
      aliveAt: now,
      expiresAt: new Date(Date.now() + 3600_000),
    };
    await records().insertOne(stuck);
    const during = await keyed(token, key, "POST", "/customers", body);
    expect([during.status, statusHeader(during)]).toEqual([409, "in-progress"]);
    await ageClaim(stuck._id, IDEMPOTENCY_SILENT_AFTER_MS + 1000);
    const silent = await keyed(token, key, "POST", "/customers", body);
    expect([silent.status, statusHeader(silent)]).toEqual([409, "outcome-unknown"]);
    // Not after ten minutes either (the old rule freed such a key, and ran the call a second time).
    await ageClaim(stuck._id, ELEVEN_MINUTES);
    expect(statusHeader(await keyed(token, key, "POST", "/customers", body))).toBe("outcome-unknown");
    expect(await countOf("customers", accountId)).toBe(0);
  });

  it("no keyed request deletes expired records; a purge deletes them and keeps the live ones", async () => {
    const { token } = await server.newAccount();
    const outcomes = server.service.db.collection<{ _id: string; outcome: null; expiresAt: Date }>(
      "idempotencyOutcomes",
    );
    const expired = { fingerprint: "x", attempt: new ObjectId(), createdAt: new Date(0), expiresAt: new Date(1000) };
    await records().insertOne({ _id: "someone/expired", ...expired });
    await outcomes.insertOne({ _id: expired.attempt.toHexString(), outcome: null, expiresAt: new Date(1000) });
    const key = newKey();
    expect((await keyed(token, key, "POST", "/customers", { name: "Not a sweeper" })).status).toBe(201);
    expect(await records().countDocuments({ _id: "someone/expired" })).toBe(1);
    expect(await outcomes.countDocuments({ _id: expired.attempt.toHexString() })).toBe(1);
    // The purge job's tick (on MongoDB, the TTL indexes do this instead).
    expect(await purgeExpiredRecords(server.service.repositories, new Date())).toBeGreaterThanOrEqual(2);
    expect(await records().countDocuments({ _id: "someone/expired" })).toBe(0);
    expect(await outcomes.countDocuments({ _id: expired.attempt.toHexString() })).toBe(0);
    // The key just used is kept, and still replays its answer.
    const again = await keyed(token, key, "POST", "/customers", { name: "Not a sweeper" });
    expect([again.status, replayed(again)]).toEqual([201, true]);
  });

  it("a purge keeps a record whose expiry is ahead, however old its key (a heartbeat moves it)", async () => {
    const { accountId } = await server.newAccount();
    const now = new Date();
    // Claimed long ago, but its heartbeat keeps its expiry a retention ahead: the purge of `now` leaves it.
    const running = { fingerprint: "x", attempt: new ObjectId(), createdAt: new Date(0), aliveAt: now };
    await records().insertOne({
      _id: `${accountId}/running`,
      ...running,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS),
    });
    await purgeExpiredRecords(server.service.repositories, now);
    expect(await records().countDocuments({ _id: `${accountId}/running` })).toBe(1);
  });
});

describe("a key never runs its call twice", () => {
  const grant = (customerId: string) => ({ customerId, amount: 10, type: "Grant" });
  const ledgerOf = async (token: string, customerId: string) =>
    (await server.rest("GET", `/credits?customerId=${customerId}`, { token })).body.entries.map(
      (e: { balanceAfterEntry: number }) => e.balanceAfterEntry,
    );

  it("when storing a grant's answer fails once, the next try stores it and repeats replay it", async () => {
    const { token, accountId, customerId } = await accountWithCustomer();
    const key = newKey();
    control.fail("idempotency.complete", `${accountId}/${key}`, 1);
    const first = await keyed(token, key, "POST", "/credits", grant(customerId));
    expect(first.status).toBe(201);
    const again = await keyed(token, key, "POST", "/credits", grant(customerId));
    expect([again.status, again.body, replayed(again)]).toEqual([201, first.body, true]);
    expect(await ledgerOf(token, customerId)).toEqual([10]);
  });

  it(
    "when a grant's answer cannot be stored at all, repeats get 409 (in-progress, then outcome-unknown), never a " +
      "second grant",
    async () => {
      const { token, accountId, customerId } = await accountWithCustomer();
      const key = newKey();
      const id = `${accountId}/${key}`;
      control.fail("idempotency.complete", id, Number.POSITIVE_INFINITY);
      const first = await keyed(token, key, "POST", "/credits", grant(customerId));
      expect(first.status).toBe(201); // the call took effect, and its caller is told so
      const soon = await keyed(token, key, "POST", "/credits", grant(customerId));
      expect([soon.status, statusHeader(soon)]).toEqual([409, "in-progress"]);
      await ageClaim(id, IDEMPOTENCY_SILENT_AFTER_MS + 1000);
      const later = await keyed(token, key, "POST", "/credits", grant(customerId));
      expectError(later, 409, "CONFLICT");
      expect(statusHeader(later)).toBe("outcome-unknown");
      await ageClaim(id, ELEVEN_MINUTES);
      expect(statusHeader(await keyed(token, key, "POST", "/credits", grant(customerId)))).toBe("outcome-unknown");
      expect(await ledgerOf(token, customerId)).toEqual([10]);
    },
  );

  it("a call running for long keeps its key alive: repeats get 409 in-progress and never start it again", {
    timeout: 30_000,
  }, async () => {
    const { token, accountId, customerId } = await accountWithCustomer();
    const credits = server.service.repositories.credits;
    const realGrant = credits.grant.bind(credits);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    vi.spyOn(credits, "grant").mockImplementationOnce(async (...args) => {
      started();
      await released;
      return realGrant(...args);
    });
    const key = newKey();
    const id = `${accountId}/${key}`;
    const first = keyed(token, key, "POST", "/credits", grant(customerId));
    await running;
    // As if the call had run for eleven minutes: its next heartbeat says it is still running.
    await ageClaim(id, ELEVEN_MINUTES);
    const deadline = Date.now() + IDEMPOTENCY_HEARTBEAT_MS + 5000;
    while (Date.now() - (await records().findOne({ _id: id }))!.aliveAt!.getTime() > IDEMPOTENCY_HEARTBEAT_MS) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const during = await keyed(token, key, "POST", "/credits", grant(customerId));
    expect([during.status, statusHeader(during)]).toEqual([409, "in-progress"]);
    release();
    expect((await first).status).toBe(201);
    expect(replayed(await keyed(token, key, "POST", "/credits", grant(customerId)))).toBe(true);
    expect(await ledgerOf(token, customerId)).toEqual([10]);
  });
});

describe("Idempotency-Key on tRPC", () => {
  const client = (token: string, key: string, batch = false) => {
    const headers = () => ({ authorization: `Bearer ${token}`, "idempotency-key": key });
    return createTRPCClient<AppRouter>({
      links: [
        batch
          ? httpBatchLink({ url: `${server.url}/trpc`, headers })
          : httpLink({ url: `${server.url}/trpc`, headers }),
      ],
    });
  };

  it("a mutation sent alone runs once per key; REST and tRPC share keys", async () => {
    const { token, accountId, customerId } = await accountWithCustomer();
    const key = newKey();
    const first = await client(token, key).credits.grant.mutate({ customerId, amount: 2, type: "Grant" });
    const again = await client(token, key).credits.grant.mutate({ customerId, amount: 2, type: "Grant" });
    expect(again).toEqual(first);
    expect(replayed(await keyed(token, key, "POST", "/credits", { customerId, amount: 2, type: "Grant" }))).toBe(true);
    expect(await trpcErrorCode(client(token, key).credits.grant.mutate({ customerId, amount: 5, type: "Grant" }))).toBe(
      "CONFLICT",
    );
    expect(await countOf("credit_entries", accountId)).toBe(1);
  });

  it("a key on a batch of several calls is refused: it could not name them all", async () => {
    const { token, accountId } = await server.newAccount();
    const batch = client(token, newKey(), true);
    const [a, b] = await Promise.allSettled([
      batch.customers.create.mutate({ name: "A" }),
      batch.customers.create.mutate({ name: "B" }),
    ]);
    for (const settled of [a, b]) expect(settled.status).toBe("rejected");
    expect(await trpcErrorCode(Promise.reject((a as PromiseRejectedResult).reason))).toBe("BAD_REQUEST");
    expect(await countOf("customers", accountId)).toBe(0);
  });
});
