import { readFile } from "node:fs/promises";
import { ObjectId } from "mongodb";
import { describe, expect, it } from "vitest";
import { ownedFilter } from "../src/db/find-owned.js";
import { RACE_DECIDED_BY_ID, shardingAnswers, shardingRefusal } from "../src/db/sharding.js";
import { useTestServer } from "./support/harness.js";

const INDEXES_DOC = new URL("../../../docs/indexes.md", import.meta.url);
const SCALING_DOC = new URL("../../../docs/scaling.md", import.meta.url);

/** The start-up check of a sharded cluster (docs/scaling.md): collections whose `_id` decides a race. */
describe("which sharded databases the service refuses", () => {
  const cluster = (...collections: [string, Record<string, unknown>][]) => ({
    sharded: true,
    shardedCollections: collections.map(([_id, key]) => ({ _id, key })),
  });

  it("starts on a database that is not a sharded cluster, whatever it answered", () => {
    expect(shardingRefusal("billing", { sharded: false, shardedCollections: [] })).toBeUndefined();
  });

  it("starts when race collections are unsharded or sharded on _id, and other collections on any key", () => {
    const ok = cluster(
      ["billing.webhookMessages", { _id: "hashed" }],
      ["billing.rateLimitSlots", { _id: 1 }],
      ["billing.events", { accountId: "hashed" }],
      ["billing.invoices", { accountId: 1 }],
    );
    expect(shardingRefusal("billing", ok)).toBeUndefined();
  });

  it("refuses a race collection sharded on another key, naming it and its key", () => {
    const refusal = shardingRefusal(
      "billing",
      cluster(["billing.webhookMessages", { accountId: 1 }], ["billing.events", { accountId: "hashed" }]),
    );
    expect(refusal).toContain('webhookMessages (sharded on {"accountId":1})');
    expect(refusal).toContain("must be unsharded or sharded on _id");
    expect(refusal).not.toContain("events");
    // A key starting with _id keeps _id unique across shards (MongoDB: "the shard key or its prefix"); any other
    // compound key does not.
    expect(shardingRefusal("billing", cluster(["billing.billingClaims", { _id: 1, accountId: 1 }]))).toBeUndefined();
    expect(shardingRefusal("billing", cluster(["billing.billingClaims", { accountId: 1, _id: 1 }]))).toContain(
      "billingClaims",
    );
  });

  it("names every collection at fault, and only this database's", () => {
    const refusal = shardingRefusal(
      "billing",
      cluster(
        ["billing.idempotencyKeys", { accountId: 1 }],
        ["billing.customerAliases", { customerId: 1 }],
        ["other.idempotencyKeys", { accountId: 1 }],
        ["billing_test.tokenEnds", { accountId: 1 }],
      ),
    );
    expect(refusal).toMatch(/idempotencyKeys .*customerAliases/);
    expect(refusal).not.toContain("tokenEnds");
    expect(shardingRefusal("billing", cluster(["other.idempotencyKeys", { accountId: 1 }]))).toBeUndefined();
  });

  it("lists the collections whose _id decides a race, the claims of billing runs among them", () => {
    for (const name of ["rateLimitSlots", "idempotencyKeys", "customerAliases", "webhookMessages", "billingClaims"])
      expect(RACE_DECIDED_BY_ID).toContain(name);
  });

  it("names real collections, and docs/scaling.md gives every collection of the index proof a shard key", async () => {
    // docs/indexes.md: a section per collection the whole test suite used (written by `pnpm check:indexes`).
    const proven = [...(await readFile(INDEXES_DOC, "utf8")).matchAll(/^## (\S+)$/gm)].map(([, name]) => name);
    const scaling = await readFile(SCALING_DOC, "utf8");
    const planned = new Set([...scaling.matchAll(/^\| `([^`]+)`(?:, `([^`]+)`)? \(/gm)].flatMap(([, a, b]) => [a, b]));
    for (const name of RACE_DECIDED_BY_ID) expect(proven).toContain(name);
    expect(proven.filter((name) => !planned.has(name))).toEqual([]);
  });
});

describe("lookups by _id on a sharded cluster", () => {
  it("carry the account, so mongos routes them to one shard; elsewhere they stay _id alone", () => {
    const _id = new ObjectId();
    expect(ownedFilter("acct_1", _id, true)).toEqual({ _id, accountId: "acct_1" });
    expect(ownedFilter("acct_1", _id, false)).toEqual({ _id });
  });
});

describe("what the embedded database answers", () => {
  const server = useTestServer();
  it("is not a sharded cluster (FerretDB answers hello without isdbgrid), so the service started", async () => {
    expect(await shardingAnswers(server.service.db)).toEqual({ sharded: false, shardedCollections: [] });
  });
});
